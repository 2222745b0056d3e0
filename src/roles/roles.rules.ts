/** Role codes: lowercase, a letter first (docs/api.md "Conventions"; the table's CHECK constraint). */
export const ROLE_CODE_PATTERN = /^[a-z][a-z0-9_]*$/;
export const ROLE_CODE_MAX_LENGTH = 50;

/** Writes under /roles. */
export const ROLES_PERMISSION = 'administracion:roles:gestionar';

/** Reads under /roles and /permisos: a user manager fills a role picker without managing roles. */
export const ROLES_READ_PERMISSION = 'administracion:roles:ver';

/** Point-in-time (`asOf`) reads need this in addition to the route's own permission. */
export const HISTORY_PERMISSION = 'administracion:auditoria:ver';

/**
 * Anti-lockout: some active user must always hold both, so that users and roles stay
 * administrable through the API.
 */
export const ADMINISTRATION_PERMISSIONS: readonly string[] = ['administracion:usuarios:gestionar', 'administracion:roles:gestionar'];

export function isRoleCode(value: unknown): value is string {
  return typeof value === 'string' && value.length <= ROLE_CODE_MAX_LENGTH && ROLE_CODE_PATTERN.test(value);
}
