import type { DataSource, DataSourceOptions, EntityManager } from 'typeorm';
import type { Engine } from '../database-url.js';

export interface ConnectionSettings {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** how long to wait for a pooled connection or a new one before failing (outages) */
  connectTimeoutMs: number;
  applicationName: string;
}

/**
 * Everything that is specific to one database engine lives behind this interface, in one class
 * per engine (postgres.dialect.ts, mssql.dialect.ts). Services and repositories ask the dialect
 * instead of writing engine-specific SQL themselves.
 */
export interface SqlDialect {
  readonly engine: Engine;

  /** TypeORM options (driver, pool, timeouts) for a connection URL of this engine. */
  dataSourceOptions(settings: ConnectionSettings): DataSourceOptions;

  /** true when the error is a unique-key violation (PostgreSQL 23505; SQL Server 2601/2627). */
  isUniqueViolation(err: unknown): boolean;

  /** true when the error means the database could not be reached (refused, timed out, shut down). */
  isConnectionFailure(err: unknown): boolean;

  /** Creates the missing monthly partitions of an event store for [firstMonth, lastMonth]; returns how many. */
  ensureMonthlyPartitions(db: EntityManager | DataSource, table: 'audit_events' | 'security_events', firstMonth: Date, lastMonth: Date): Promise<number>;

  /** Creates an empty database (tests); from a template where the engine has them. */
  createDatabase(admin: DataSource, name: string, template?: string): Promise<void>;
  dropDatabase(admin: DataSource, name: string): Promise<void>;
  /** Whether createDatabase can clone a migrated template (PostgreSQL) or each database must be migrated (SQL Server). */
  readonly supportsTemplates: boolean;
}
