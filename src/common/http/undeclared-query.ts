import { ValidationFailedError } from '../errors/domain-error.js';
import { unknownFieldErrors } from '../validation/messages.js';

/**
 * An operation of `/api/v1` that declares no query parameter refuses any, with the 400
 * `validacion` (`whitelistValidation`) a list gives for a parameter its query does not declare:
 * `GET /roles/admin?asOf=…` answered today's role as if it were the one of that instant, and a
 * misspelt parameter passed silently. Raised by the AccessGuard after 401 and 403, like a refused body.
 */
export function throwIfQuery(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  const names = Object.keys(query);
  if (names.length === 0) return;
  throw new ValidationFailedError(unknownFieldErrors(names), 'Esta operación no lleva parámetros de consulta');
}
