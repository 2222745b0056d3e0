import { type DataSource, type DataSourceOptions, type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';
import type { TurnClient } from '../../common/concurrency/turn-order.js';
import type { Engine } from '../database-url.js';

/** The system-versioned tables (history in `<table>_history`; SQL Server: SYSTEM_VERSIONING = ON). */
export type VersionedTable = 'users' | 'roles' | 'permissions' | 'role_permissions';

export interface ConnectionSettings {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** how long to wait for a pooled connection or a new one before failing (outages) */
  connectTimeoutMs: number;
  applicationName: string;
  /**
   * PostgreSQL: the role every connection switches to at start (`-c role=…`), so the service runs
   * with the restricted rights of `medios_app` (DATABASE_APP_ROLE) whatever the login. Unset for
   * migrations and admin connections. SQL Server ignores it: there the login's database user is
   * made a member of the restricted role instead (migrations/mssql/1763712600000-append-only.ts).
   */
  role?: string;
  /**
   * A read replica's pool: PostgreSQL sessions start read-only (`default_transaction_read_only`),
   * SQL Server connects with `ApplicationIntent=ReadOnly`, which an availability group's listener
   * routes to a readable secondary.
   */
  readOnly?: boolean;
}

/** The two append-only event stores, partitioned monthly by occurred_at (UTC). */
export type EventStore = 'audit_events' | 'security_events';

/**
 * The tables the service may only add rows to: the event stores and the seals that make them
 * tamper-evident, with the verifications of those seals. The restricted role (DATABASE_APP_ROLE on
 * PostgreSQL, `medios_app_role` on SQL Server) lacks UPDATE and DELETE on them; a login that has
 * them anyway (a table owner, `db_owner`, `sysadmin`) is reported at start.
 */
export const APPEND_ONLY_TABLES = ['audit_events', 'security_events', 'audit_seals', 'audit_verifications'] as const;

/**
 * A statement on a query runner TypeORM already released: it releases a runner when the driver
 * reports its connection lost (PostgreSQL: the client's `error` event, e.g. a backend terminated
 * by an administrator), so what the request still had to run on it (an ETag read after the
 * handler) meets this instead of the connection's own error. A connection failure like that one.
 */
export function isReleasedRunner(err: unknown): boolean {
  return err instanceof QueryRunnerAlreadyReleasedError;
}

/** The start warning for a service login that may change or remove rows of the append-only tables. */
export function appendOnlyProblem(tables: readonly string[], remedy: string): string {
  return (
    `the service's database login may change or delete rows of ${tables.join(', ')}: the audit trail is ` +
    `append-only only while the service connects with the restricted role (${remedy})`
  );
}

/** A statement with its parameters in the engine's own placeholder style. */
export interface SqlStatement {
  sql: string;
  parameters: unknown[];
}

/**
 * One page of GET /api/v1/audit/events. Instants are canonical UTC strings with nine fraction
 * digits (`2025-03-01T12:00:00.123456000Z`), so no precision is lost on the way to the engine.
 */
export interface AuditPageQuery {
  actorUserId?: number;
  /** exact action name */
  action?: string;
  targetType?: string;
  targetId?: string;
  /** inclusive bounds */
  from?: string;
  to?: string;
  /** keyset position: only rows strictly older than (occurred_at, id) = (t, id) */
  after?: { t: string; id: string };
  /** rows to read (the caller asks for one more than it shows) */
  rows: number;
}

/**
 * A row of the audit page: `id` as a decimal string, `occurred_at` as ISO-8601 UTC text at the
 * engine's full precision (microseconds / 100 ns), `metadata` as JSON text.
 */
export interface AuditPageRow {
  id: string;
  occurred_at: string;
  actor_user_id: number;
  actor_username: string | null;
  actor_role_id: number | null;
  ip: string | null;
  user_agent: string | null;
  correlation_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  metadata: string | null;
}

/** Which rows of an event store to read: an id window (after, upTo], or listed ids. */
export type EventIdSelection = { afterId: number; upToId: number } | { ids: readonly number[] };

/**
 * A row of an event store as the integrity code reads it: `id` as text, `occurred_at` as the
 * engine's full-precision text (see canonicalInstantFromText), `correlation_id` in lower case,
 * `metadata` as JSON text, `row_hash` hex or null. `columns: 'seal'` reads only id, occurred_at and
 * row_hash.
 */
export type EventRow = Record<string, string | number | null> & { id: string | number; occurred_at: string; row_hash: string | null };

/** Whether system versioning is on for a table and its history table exists. */
export interface VersioningState {
  table: string;
  enabled: boolean;
  historyTable: string | null;
  historyTableExists: boolean;
}

/** The recorded history retention of a versioned table. */
export interface RetentionState {
  table: string;
  /** as the engine describes it ('10 years', '120 MONTH', 'INFINITE'), null when none is recorded */
  retention: string | null;
  /** the retention as a whole number of years, null when it is not one */
  years: number | null;
  /** false when the engine would not enforce it (SQL Server: TEMPORAL_HISTORY_RETENTION OFF) */
  enforced: boolean;
}

/** One partition of an event store; a null bound is open-ended (MINVALUE/MAXVALUE, the outer SQL Server partitions). */
export interface PartitionRange {
  name: string;
  from: Date | null;
  to: Date | null;
}

/** A held database job lock (advisory lock / sp_getapplock). */
export interface JobLock {
  release(): Promise<void>;
}

/** Where a dialect runs a statement: the data source or a transaction's entity manager. */
export type Queryable = EntityManager | DataSource;

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

  /**
   * true when the engine aborted the transaction to settle a conflict with another one that a
   * retry of the request would not meet again (a deadlock victim; SQL Server's update of a
   * system-versioned row that a transaction begun later has already changed). Answered as 503 with
   * `Retry-After`, like an unreachable database: the request did nothing and can be sent again.
   */
  isTransientConflict(err: unknown): boolean;

  /**
   * true when the engine cancelled a statement that ran past the statement timeout or waited past
   * a lock timeout (a lock another transaction held too long, a database too busy to answer in
   * time). Answered as 503 with `Retry-After`: the request's transaction rolled back, nothing was
   * kept, and it can be sent again. Not a connection failure: a read replica that times out a
   * statement stays usable.
   */
  isTimedOut(err: unknown): boolean;

  /**
   * Creates the missing monthly partitions of an event store for [firstMonth, lastMonth]; returns
   * how many. `timeoutMs` (the maintenance timeout) replaces the statement timeout for this call
   * where the engine's work can take long: on SQL Server a SPLIT moves the rows already in the open
   * last partition, under a 60 s maintenance lock wait. PostgreSQL creates empty partitions (no
   * default partition to move rows from) and keeps its statement timeout.
   */
  ensureMonthlyPartitions(
    db: EntityManager | DataSource,
    table: 'audit_events' | 'security_events',
    firstMonth: Date,
    lastMonth: Date,
    timeoutMs?: number,
  ): Promise<number>;

  /**
   * Takes an application lock named `resource` until the current transaction ends (PostgreSQL
   * pg_advisory_xact_lock[_shared]; SQL Server sp_getapplock with @LockOwner = 'Transaction').
   * `shared` holders run together; `exclusive` waits for all of them and excludes everyone.
   * Must run inside a transaction (`db` is the transaction's EntityManager).
   */
  transactionLock(db: EntityManager, resource: string, mode: 'shared' | 'exclusive'): Promise<void>;

  /**
   * Point-in-time read of a system-versioned table: the given columns of the rows that were
   * current at the instant `asOf`, filtered by equality on `where` (column → value; empty for
   * every row). PostgreSQL: the current rows whose `sys_period` contains the instant, plus the
   * history rows whose `sys_period` contains it (validity is `[from, to)`, so exactly one version
   * of a row matches). SQL Server: `FOR SYSTEM_TIME AS OF` with a datetime2 parameter.
   * Table and column names come from code, never from a request.
   */
  selectAsOf<T>(
    db: EntityManager | DataSource,
    table: VersionedTable,
    columns: readonly string[],
    where: Readonly<Record<string, string | number>>,
    asOf: string,
  ): Promise<T[]>;

  /**
   * `INSERT INTO table (columns) VALUES (:column, …)` answering the given columns of the new row
   * (PostgreSQL `RETURNING`; SQL Server `OUTPUT INSERTED.…`, which needs a table without triggers),
   * or nothing when `returning` is empty. Parameters are named after their columns (`:codigo`), for
   * a PreparedStatement. Table and column names come from code, never from a request.
   */
  insertStatement(table: string, columns: readonly string[], returning?: readonly string[]): string;

  /**
   * A condition: the JSON document in column `document` (text holding an object) has, under `key`,
   * an array that holds the string `value` — a `:name` parameter. For the permission overrides
   * `{granted: [...], denied: [...]}` inside the guard's statement. Column and key come from code.
   */
  jsonArrayContains(document: string, key: string, value: string): string;

  /** The keyset page of audit events, newest first by (occurred_at, id), with the actor's username. */
  auditEventsPage(query: AuditPageQuery): SqlStatement;

  /**
   * The database settings the service relies on that are not as it needs them, each as a sentence
   * for the operator (empty when all are): on both engines, a service login that may change or
   * delete rows of the append-only tables (APPEND_ONLY_TABLES). Reported at start as warnings: a
   * database without them still serves, with the failures each sentence names.
   */
  prerequisiteProblems(db: Queryable): Promise<string[]>;

  /** System versioning of each table, in the order given. */
  versioningState(db: Queryable, tables: readonly string[]): Promise<VersioningState[]>;

  /** History retention of each versioned table, in the order given. */
  historyRetention(db: Queryable, tables: readonly string[]): Promise<RetentionState[]>;

  /** The partitions of an event store with their bounds. */
  partitionRanges(db: Queryable, table: EventStore): Promise<PartitionRange[]>;

  /**
   * Takes the named job lock without waiting, on its own connection, so that one instance runs a
   * job at a time; null when another session holds it. The lock dies with the connection.
   */
  tryJobLock(dataSource: DataSource, name: string): Promise<JobLock | null>;

  /** Drops (empties) the partitions of an event store that hold only rows older than `cutoff`; returns what it dropped. */
  dropPartitionsOlderThan(db: Queryable, table: EventStore, cutoff: Date): Promise<string[]>;

  /** Deletes at most `chunk` rows of an event store older than `cutoff`; returns how many. */
  deleteRowsOlderThan(db: Queryable, table: EventStore, cutoff: Date, chunk: number): Promise<number>;

  /**
   * Deletes at most `chunk` history rows of a versioned table whose validity ended before
   * `cutoff`; returns how many, or null when the engine enforces history retention itself.
   */
  deleteHistoryOlderThan(db: Queryable, table: string, cutoff: Date, chunk: number): Promise<number | null>;

  /**
   * How far behind its primary the replica that `replica` is connected to is, in seconds: 0 when
   * it has applied everything it received (or is not a replica at all), null when the engine
   * cannot tell (nothing replayed yet, data movement stopped). PostgreSQL: `now() -
   * pg_last_xact_replay_timestamp()` on the standby; SQL Server: the local database's state in
   * sys.dm_hadr_database_replica_states on the readable secondary.
   */
  replicaLagSeconds(replica: DataSource): Promise<number | null>;
  /** Rows of an event store in id order (integrity: sealing reads `seal` columns, verification `full`). */
  eventRows(store: EventStore, selection: EventIdSelection, columns: 'seal' | 'full'): SqlStatement;

  /** The highest id the store's id generator has handed out so far (0 when none): sequence / identity. */
  eventIdHighWater(db: Queryable, store: EventStore): Promise<number>;

  /**
   * Waits (at most `timeoutMs`) until every transaction that is writing to the store when called
   * has ended. true when that is proven: then every id up to a high-water mark read before the call
   * is final (committed and visible, or never). PostgreSQL: the holders of RowExclusiveLock on the
   * store, from pg_locks. SQL Server: false (its lock views need server-level permissions); the
   * seal job then relies on confirmAbsent at its next run.
   */
  awaitEventWriters(dataSource: DataSource, store: EventStore, timeoutMs: number): Promise<boolean>;

  /**
   * Of ids that were missing at an earlier seal run, the ones that are still not written at all,
   * not even by a transaction in progress (SQL Server: a READUNCOMMITTED read). PostgreSQL: none
   * (uncommitted rows are invisible there; awaitEventWriters proves absence instead).
   */
  confirmAbsent(db: Queryable, store: EventStore, ids: readonly number[]): Promise<number[]>;

  /** Creates an empty database (tests); from a template where the engine has them. */
  createDatabase(admin: DataSource, name: string, template?: string): Promise<void>;
  dropDatabase(admin: DataSource, name: string): Promise<void>;
  /** Whether createDatabase can clone a migrated template (PostgreSQL) or each database must be migrated (SQL Server). */
  readonly supportsTemplates: boolean;

  /** The connection pool's state right now (the metrics read it at each scrape); zeros before the pool exists. */
  poolUsage(dataSource: DataSource): PoolUsage;

  /**
   * Makes the connection pool of an initialized `dataSource` lend its connections in turns by
   * client when every one is busy: the pool's own line of waiting acquisitions becomes a TurnOrder
   * keyed by `clientOf()` at the moment each acquisition starts. Without it the line is first come,
   * first served, and one client's burst of slow statements makes every other client wait for the
   * whole burst. Throws when the pool library no longer keeps its line where this expects it.
   */
  serveConnectionsInTurns(dataSource: DataSource, clientOf: () => TurnClient): void;
}

/** Connections of the service's pool: lent to a query or transaction, idle, and acquisitions waiting for one. */
export interface PoolUsage {
  inUse: number;
  idle: number;
  waiting: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** Guards the column names the dialects interpolate into SQL (they come from code, never input). */
export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a plain SQL identifier: ${name}`);
  return name;
}

/**
 * A canonical instant raised to the next multiple of 10^-digits s when it has finer digits
 * (`…36.7560009Z` at 6 digits is `…36.756001000Z`): the inclusive lower bound an engine of that
 * precision compares, which must not admit an earlier instant, as cutting the digits would.
 */
export function ceilInstant(instant: string, digits: number): string {
  const fraction = instant.slice(20, 29);
  if (/^0*$/.test(fraction.slice(digits))) return instant;
  const kept = BigInt(fraction.slice(0, digits)) + 1n;
  const unit = 10n ** BigInt(digits);
  const seconds = new Date(`${instant.slice(0, 19)}Z`);
  if (kept === unit) seconds.setUTCSeconds(seconds.getUTCSeconds() + 1);
  // past the last instant of year 9999, which neither engine can take: the last one they hold
  // (no event is ever stored there; a bound beyond it finds nothing either way)
  if (seconds.getUTCFullYear() > 9999) return `9999-12-31T23:59:59.${'9'.repeat(digits).padEnd(9, '0')}Z`;
  return `${seconds.toISOString().slice(0, 19)}.${String(kept % unit)
    .padStart(digits, '0')
    .padEnd(9, '0')}Z`;
}
