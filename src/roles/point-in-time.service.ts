import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Clock } from '../common/context/clock.js';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import type { VersionedTable } from '../database/dialects/sql-dialect.js';
import { instantOf } from '../audit/utc-instant.js';
import { parseAsOf } from './point-in-time.js';

/**
 * Point-in-time reads of the system-versioned tables (users, roles, permissions,
 * role_permissions): the engine-specific "as of" SQL lives in the dialect.
 */
@Injectable()
export class PointInTimeService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly clock: Clock,
  ) {}

  /**
   * The `asOf` query value as a canonical instant (utc-instant.ts, every fraction digit kept): 400
   * `validacion` when unparsable or in the future.
   */
  instant(raw: string): string {
    const asOf = parseAsOf(raw);
    if (!asOf) throw invalid('asOf debe ser un instante ISO-8601 con zona, p. ej. 2025-03-01T10:20:30Z');
    if (asOf > instantOf(this.clock.now())) throw invalid('asOf no puede estar en el futuro');
    return asOf;
  }

  /** The rows of `table` that were current at `asOf`, filtered by equality on `where`. */
  rows<T>(table: VersionedTable, columns: readonly string[], where: Readonly<Record<string, string | number>>, asOf: string): Promise<T[]> {
    return this.dialect.selectAsOf<T>(this.txHost.tx, table, columns, where, asOf);
  }
}

function invalid(message: string): ValidationFailedError {
  return new ValidationFailedError([{ field: 'asOf', message }], message);
}
