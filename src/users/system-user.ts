/**
 * The username of the actor of operator actions taken through the CLI (AdminBootstrapService
 * creates it on first use, inactive). Reserved: the API refuses to create a user of that name, so
 * a real account can never be taken for it.
 */
export const SYSTEM_USERNAME = 'system';
