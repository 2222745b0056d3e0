import type { SqlDialect } from '../../database/dialects/index.js';
import { DomainError } from './domain-error.js';
import type { ErrorCode } from './error-codes.js';

/**
 * Runs a write whose uniqueness the store guarantees and turns the store's unique violation into
 * a 409 (`duplicado` unless told otherwise). Services check the friendly case first for a clear
 * message; this covers concurrent requests that both passed that check.
 */
export async function uniqueOr409<T>(dialect: SqlDialect, message: string, write: () => Promise<T>, code: ErrorCode = 'duplicado'): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (dialect.isUniqueViolation(err)) throw new DomainError(code, message);
    throw err;
  }
}
