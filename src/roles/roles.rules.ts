import { PERMISSIONS } from '../auth/permissions.js';

/** Role codes: lowercase, a letter first (docs/api.md "Conventions"; the table's CHECK constraint). */
export const ROLE_CODE_PATTERN = /^[a-z][a-z0-9_]*$/;
export const ROLE_CODE_MAX_LENGTH = 50;

/**
 * Anti-lockout: some active user must always hold both, so that users and roles stay
 * administrable through the API.
 */
export const ADMINISTRATION_PERMISSIONS: readonly string[] = [PERMISSIONS.usuarios.gestionar, PERMISSIONS.roles.gestionar];

export function isRoleCode(value: unknown): value is string {
  return typeof value === 'string' && value.length <= ROLE_CODE_MAX_LENGTH && ROLE_CODE_PATTERN.test(value);
}
