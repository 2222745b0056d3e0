/**
 * The username of the actor of operator actions taken through the CLI (AdminBootstrapService
 * creates it on first use, inactive). Reserved: the API refuses to create a user of that name, and
 * to act on it (DelegationPolicy: no update, reactivation, password reset, overrides or session
 * revocation), so it stays an account nobody signs in as.
 */
export const SYSTEM_USERNAME = 'system';
