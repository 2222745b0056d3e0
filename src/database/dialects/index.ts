import type { Engine } from '../database-url.js';
import { MssqlDialect } from './mssql.dialect.js';
import { PostgresDialect } from './postgres.dialect.js';
import type { SqlDialect } from './sql-dialect.js';

export type { SqlDialect, ConnectionSettings } from './sql-dialect.js';

export function dialectFor(engine: Engine): SqlDialect {
  return engine === 'mssql' ? new MssqlDialect() : new PostgresDialect();
}

/** Injection token of the active engine's SqlDialect. */
export const SQL_DIALECT = Symbol('SQL_DIALECT');
