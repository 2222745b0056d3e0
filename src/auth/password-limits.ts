/**
 * bcrypt's input limit: longer passwords are rejected, never silently truncated. A module of its
 * own, free of the service's configuration, because the configuration itself checks the bootstrap
 * password against it.
 */
export const MAX_PASSWORD_BYTES = 72;
