import { DomainError } from '../common/errors/domain-error.js';
import type { SqlDialect } from '../database/dialects/index.js';

/**
 * Runs a write whose uniqueness the store guarantees and turns the store's unique violation into
 * 409 `duplicado` — the services check the friendly case first, this covers concurrent requests.
 */
export async function uniqueOrDuplicate<T>(dialect: SqlDialect, message: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (dialect.isUniqueViolation(err)) throw new DomainError('duplicado', message);
    throw err;
  }
}
