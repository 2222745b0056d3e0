import { createRequire } from 'node:module';
import { type TurnClient, TurnOrder } from '../../common/concurrency/turn-order.js';
import { type DataSource, type DataSourceOptions, type EntityManager, MssqlParameter, SelectQueryBuilder } from 'typeorm';
import { parseDatabaseUrl } from '../database-url.js';
import {
  APPEND_ONLY_TABLES,
  appendOnlyProblem,
  assertIdentifier,
  isReleasedRunner,
  type AuditPageQuery,
  type ConnectionSettings,
  type EventIdSelection,
  type EventStore,
  type JobLock,
  type PartitionRange,
  type Queryable,
  type RetentionState,
  type SqlDialect,
  type SqlStatement,
  type VersionedTable,
  type VersioningState,
  type PoolUsage,
  ceilInstant,
} from './sql-dialect.js';

function errorNumber(err: unknown): number | undefined {
  const e = err as { number?: unknown; driverError?: { number?: unknown; originalError?: { info?: { number?: unknown } } } } | null;
  const n = e?.driverError?.number ?? e?.number ?? e?.driverError?.originalError?.info?.number;
  return typeof n === 'number' ? n : undefined;
}

const monthStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

interface MssqlModule {
  map: { register(js: unknown, sql: unknown): void };
  DateTime2: unknown;
  NVarChar: (length: number) => unknown;
  Date: unknown;
}

/** The parts of an mssql ConnectionPool (TypeORM's SqlServerDriver.master) a maintenance call uses. */
interface MssqlPool {
  request(overrides: { requestTimeout: number }): {
    input(name: string, type: unknown, value: unknown): void;
    query<T>(sql: string): Promise<{ recordset: T[] }>;
  };
}
let mssqlModule: MssqlModule | undefined;

/**
 * The `mssql` package TypeORM is given (`driver` option). A parameter the code does not type
 * itself (raw queries, query-builder parameters) gets its SQL type from the JavaScript value, and
 * the package maps a Date to `datetime` (1/300 s): a keyset cursor or an "as of" instant would
 * then miss rows written as datetime2(7). Registering Date → DateTime2 makes every untyped Date
 * a datetime2(7) parameter; the dialect's own methods also type theirs explicitly.
 */
export function mssqlDriver(): MssqlModule {
  if (!mssqlModule) {
    const mssql = createRequire(import.meta.url)('mssql') as MssqlModule;
    mssql.map.register(Date, mssql.DateTime2);
    exclusiveWriteLocks();
    mssqlModule = mssql;
  }
  return mssqlModule;
}

/** The lock hint of a `pessimistic_write` read on SQL Server: conflicts with every other lock on the row, shared ones included. */
const EXCLUSIVE_ROW_LOCK = ' WITH (XLOCK, ROWLOCK)';

/**
 * TypeORM writes a `pessimistic_write` read as `WITH (UPDLOCK, ROWLOCK)` on SQL Server. An update
 * lock does not conflict with the shared lock of a `pessimistic_read` (`HOLDLOCK`), which the
 * services take on a parent while a child is created under it or moved to it. A deactivation
 * holding the parent's update lock therefore did not wait for that child: its check for active
 * children read the committed rows (without the child), both requests committed, and an active
 * product stood under an inactive product type or rubro. On PostgreSQL, `FOR UPDATE` conflicts
 * with `FOR SHARE`, and the suites prove the services' lock order on that rule; `XLOCK` gives SQL
 * Server the same one. Readers without a hint read row versions (READ_COMMITTED_SNAPSHOT) and wait
 * for neither. TypeORM has no option for the hint, so its (private) method is wrapped, once, for
 * SQL Server only; a TypeORM without it stops the start instead of locking weaker.
 */
function exclusiveWriteLocks(): void {
  type LockWriter = { createTableLockExpression?: (this: LockedQuery) => string };
  type LockedQuery = { dataSource: DataSource; expressionMap: { lockMode?: string } };
  const proto = SelectQueryBuilder.prototype as unknown as LockWriter;
  const typeorms = proto.createTableLockExpression;
  if (typeof typeorms !== 'function')
    throw new Error('TypeORM no longer has SelectQueryBuilder.createTableLockExpression: the SQL Server write-lock hint cannot be set');
  proto.createTableLockExpression = function (this: LockedQuery) {
    if (this.expressionMap.lockMode === 'pessimistic_write' && this.dataSource.driver.options.type === 'mssql') return EXCLUSIVE_ROW_LOCK;
    return typeorms.call(this);
  };
}

export class MssqlDialect implements SqlDialect {
  readonly engine = 'mssql' as const;
  readonly supportsTemplates = false;

  dataSourceOptions(s: ConnectionSettings): DataSourceOptions {
    const u = parseDatabaseUrl(s.url);
    // Without a database in the URL the driver would use the login's default database (master,
    // usually) and the migrations would build the schema there: refuse instead of guessing.
    if (!u.database) {
      throw new Error(
        "DATABASE_URL names no database: write mssql://user:password@host:1433/<database> (the service never falls back to the login's default database, usually master)",
      );
    }
    const flag = (name: string, dflt: boolean) => {
      const v = u.params.get(name);
      return v === null ? dflt : v === 'true' || v === '1';
    };
    // a named instance (?instanceName=SQLEXPRESS) is found through the SQL Browser, without a port
    const instanceName = u.params.get('instanceName') ?? undefined;
    return {
      type: 'mssql',
      driver: mssqlDriver(),
      host: u.host,
      port: instanceName ? undefined : (u.port ?? 1433),
      username: u.username,
      password: u.password,
      database: u.database,
      connectionTimeout: s.connectTimeoutMs,
      requestTimeout: s.statementTimeoutMs,
      pool: { max: s.poolSize, min: 0, idleTimeoutMillis: 30_000, acquireTimeoutMillis: s.connectTimeoutMs },
      options: {
        // every date is UTC in and out; date parameters are typed datetime2 (never datetime)
        useUTC: true,
        // uniqueidentifier columns read back in lower case, as PostgreSQL's uuid (and as the
        // service writes them): correlation ids and refresh-token families compare equal as strings
        lowerCaseGuids: true,
        encrypt: flag('encrypt', true),
        // the server's certificate is validated unless the URL asks otherwise
        // (?trustServerCertificate=true: a development server with a self-signed certificate)
        trustServerCertificate: flag('trustServerCertificate', false),
        appName: s.applicationName,
        // ApplicationIntent=ReadOnly: the availability group listener routes to a readable secondary
        ...(s.readOnly ? { readOnlyIntent: true } : {}),
        ...(instanceName ? { instanceName } : {}),
      },
    } as unknown as DataSourceOptions;
  }

  async replicaLagSeconds(replica: DataSource): Promise<number | null> {
    // The local row of this database on the secondary: caught up when nothing waits to be redone;
    // otherwise the age of the last commit it redid (the DMV's times are the server's local time).
    // No row: the database is in no availability group, i.e. not a replica.
    // bigint columns (redo_queue_size, lag_ms) come back from tedious as strings: "0" is no empty queue to `!`
    const rows: Array<{ is_primary_replica: boolean; state: string; redo_queue_size: number | string | null; lag_ms: number | string | null }> =
      await replica.query(
        `SELECT rs.is_primary_replica, rs.synchronization_state_desc AS state, rs.redo_queue_size,
                DATEDIFF_BIG(millisecond, rs.last_commit_time, SYSDATETIME()) AS lag_ms
           FROM sys.dm_hadr_database_replica_states rs
          WHERE rs.database_id = DB_ID() AND rs.is_local = 1`,
      );
    const row = rows[0];
    if (!row || row.is_primary_replica) return 0;
    if (row.state === 'NOT SYNCHRONIZING') return null;
    if (row.redo_queue_size === null || Number(row.redo_queue_size) === 0) return 0;
    return row.lag_ms === null ? null : Math.max(0, Number(row.lag_ms) / 1000);
  }

  isUniqueViolation(err: unknown): boolean {
    const n = errorNumber(err);
    return n === 2601 || n === 2627;
  }

  isTransientConflict(err: unknown): boolean {
    // 1205: chosen as deadlock victim. 13535: a temporal table's row was changed by a transaction
    // that began after this one, whose period would end before it starts (the history forbids it);
    // PostgreSQL's versioning trigger lets the older transaction through instead.
    const n = errorNumber(err);
    return n === 1205 || n === 13535;
  }

  isTimedOut(err: unknown): boolean {
    // mssql's requestTimeout (the statement timeout: a RequestError ETIMEOUT), 1222: lock request time out
    const e = err as { code?: unknown; name?: unknown; driverError?: { code?: unknown; name?: unknown } } | null;
    const code = e?.driverError?.code ?? e?.code;
    const name = e?.driverError?.name ?? e?.name;
    return (code === 'ETIMEOUT' && name === 'RequestError') || errorNumber(err) === 1222;
  }

  isConnectionFailure(err: unknown): boolean {
    if (isReleasedRunner(err)) return true;
    const e = err as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      driverError?: { code?: unknown; name?: unknown; message?: unknown };
    } | null;
    const code = e?.driverError?.code ?? e?.code;
    const name = e?.driverError?.name ?? e?.name;
    const message = e?.driverError?.message ?? e?.message;
    // the pool (tarn) gave up waiting for a connection: an exhausted pool or a server that does not
    // answer, as pg-pool's "timeout exceeded when trying to connect" is on PostgreSQL. It has no
    // code; mssql marks its message.
    if (typeof message === 'string' && message.startsWith('Failed to acquire a connection from the pool')) return true;
    // ETIMEOUT of a RequestError is a statement that ran too long (requestTimeout, isTimedOut), not an outage
    if (code === 'ETIMEOUT') return name !== 'RequestError';
    return (
      code === 'ESOCKET' ||
      code === 'ECONNCLOSED' ||
      code === 'ECONNRESET' ||
      code === 'ENOTOPEN' ||
      code === 'ELOGIN' ||
      code === 'EINSTLOOKUP' ||
      code === 'ECONNREFUSED'
    );
  }

  async ensureMonthlyPartitions(
    db: EntityManager | DataSource,
    table: 'audit_events' | 'security_events',
    firstMonth: Date,
    lastMonth: Date,
    timeoutMs?: number,
  ): Promise<number> {
    // dbo.ensure_monthly_partitions (migrations/mssql/1763712000000-platform.ts) gives each month
    // of [first, last] its own partition: it SPLITs the missing month-start boundaries of first …
    // last + 1 month, with ALTER PARTITION SCHEME … NEXT USED before each SPLIT RANGE, under an
    // application lock. Both stores share the one function pf_events_monthly (through the scheme
    // ps_events_monthly), so a boundary created for one store covers the other as well: a second
    // call for the other store over the same months returns 0.
    //
    // The procedure waits up to 60 s for its lock (@LockTimeout = 60000), and a SPLIT moves the rows
    // that already landed in the open last partition: under the service's request timeout
    // (DB_STATEMENT_TIMEOUT_MS, 15 s) such a run would be cancelled every time and never catch up.
    // With `timeoutMs` (DB_MAINTENANCE_TIMEOUT_MS, 30 min by default, never below 2 min) it runs
    // as its own request of the pool with that timeout; the procedure keeps its body (it is
    // signed: altering it would drop the signature).
    const sql = 'EXEC dbo.ensure_monthly_partitions @0, @1, @2';
    const store = eventStore(table);
    const pool = timeoutMs === undefined ? undefined : poolOf(db);
    if (pool) {
      const mssql = mssqlDriver();
      const request = pool.request({ requestTimeout: timeoutMs! });
      request.input('0', mssql.NVarChar(128), store);
      request.input('1', mssql.Date, monthStart(firstMonth));
      request.input('2', mssql.Date, monthStart(lastMonth));
      const { recordset } = await request.query<{ created: number }>(sql);
      return Number(recordset?.[0]?.created ?? 0);
    }
    const rows: Array<{ created: number }> = await db.query(sql, [
      new MssqlParameter(store, 'nvarchar', 128),
      new MssqlParameter(monthStart(firstMonth), 'date'),
      new MssqlParameter(monthStart(lastMonth), 'date'),
    ]);
    return Number(rows?.[0]?.created ?? 0);
  }

  async transactionLock(db: EntityManager, resource: string, mode: 'shared' | 'exclusive'): Promise<void> {
    // Owned by the transaction: released at COMMIT/ROLLBACK. A negative result means the lock was
    // not granted (timeout, deadlock victim, cancelled): fail the request instead of running unlocked.
    await db.query(
      `DECLARE @result int;
       EXEC @result = sp_getapplock @Resource = @0, @LockMode = @1, @LockOwner = 'Transaction', @LockTimeout = -1;
       IF @result < 0 THROW 51000, 'application lock not granted', 1;`,
      [resource, mode === 'shared' ? 'Shared' : 'Exclusive'],
    );
  }

  async selectAsOf<T>(
    db: EntityManager | DataSource,
    table: VersionedTable,
    columns: readonly string[],
    where: Readonly<Record<string, string | number>>,
    asOf: string,
  ): Promise<T[]> {
    // The instant travels as datetime2(7), cut to its 100 ns: the driver's default for a Date is
    // datetime, whose 1/300 s rounding could pick the neighbouring version. Period columns are
    // UTC, like useUTC.
    const cols = columns.map((c) => quoteIdent(assertIdentifier(c))).join(', ');
    const params: unknown[] = [datetime2(asOf)];
    const filter: string[] = [];
    for (const [column, value] of Object.entries(where)) {
      params.push(typeof value === 'number' ? new MssqlParameter(value, 'int') : new MssqlParameter(value, 'nvarchar', 4000));
      filter.push(`${quoteIdent(assertIdentifier(column))} = @${params.length - 1}`);
    }
    return db.query(
      `SELECT ${cols} FROM dbo.${quoteIdent(table)} FOR SYSTEM_TIME AS OF @0${filter.length ? ` WHERE ${filter.join(' AND ')}` : ''}`,
      params,
    );
  }

  insertStatement(table: string, columns: readonly string[], returning: readonly string[] = []): string {
    const names = columns.map(assertIdentifier);
    const output = returning.length ? ` OUTPUT ${returning.map((c) => `INSERTED.${assertIdentifier(c)}`).join(', ')}` : '';
    return `INSERT INTO ${assertIdentifier(table)} (${names.join(', ')})${output} VALUES (${names.map((c) => `:${c}`).join(', ')})`;
  }

  jsonArrayContains(document: string, key: string, value: string): string {
    const column = document.split('.').map(assertIdentifier).join('.');
    if (!/^:[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw new Error(`not a :named parameter: ${value}`);
    return `EXISTS (SELECT 1 FROM OPENJSON(${column}, '$.${assertIdentifier(key)}') j WHERE j.[value] = ${value})`;
  }

  auditEventsPage(q: AuditPageQuery): SqlStatement {
    const parameters: unknown[] = [];
    const param = (value: unknown) => {
      parameters.push(value);
      return `@${parameters.length - 1}`;
    };
    const where: string[] = [];
    if (q.actorUserId !== undefined) where.push(`e.actor_user_id = ${param(new MssqlParameter(q.actorUserId, 'int'))}`);
    // Exact, as on PostgreSQL: the columns keep the database's (case-insensitive) collation and `=`
    // ignores trailing spaces, so `?action=USUARIO.UPDATE` found `usuario.update`. The plain `=`
    // still seeks the index; the binary comparison and the lengths decide.
    const exact = (column: string, value: string, length: number) => {
      const p = param(new MssqlParameter(value, 'nvarchar', length));
      return `${column} = ${p} AND ${column} COLLATE Latin1_General_100_BIN2 = ${p} AND DATALENGTH(${column}) = DATALENGTH(${p})`;
    };
    if (q.action !== undefined) where.push(exact('e.action', q.action, 64));
    if (q.targetType !== undefined) where.push(exact('e.target_type', q.targetType, 64));
    if (q.targetId !== undefined) where.push(exact('e.target_id', q.targetId, 128));
    if (q.from !== undefined) where.push(`e.occurred_at >= ${param(datetime2(ceilInstant(q.from, 7)))}`);
    if (q.to !== undefined) where.push(`e.occurred_at <= ${param(datetime2(q.to))}`);
    if (q.after) {
      const t = param(datetime2(q.after.t));
      const id = param(new MssqlParameter(q.after.id, 'bigint'));
      // SQL Server has no row-value comparison. The plain bound eliminates newer partitions and
      // seeks the (…, occurred_at DESC, id DESC) indexes; the OR is the exact keyset position.
      where.push(`e.occurred_at <= ${t}`, `(e.occurred_at < ${t} OR (e.occurred_at = ${t} AND e.id < ${id}))`);
    }
    const top = param(new MssqlParameter(q.rows, 'int'));
    const sql = `SELECT TOP (${top}) CAST(e.id AS varchar(20)) AS id,
       CONCAT(REPLACE(CONVERT(varchar(27), e.occurred_at, 121), ' ', 'T'), 'Z') AS occurred_at,
       e.actor_user_id, u.username AS actor_username, e.actor_role_id, e.ip, e.user_agent,
       LOWER(CAST(e.correlation_id AS char(36))) AS correlation_id, e.action, e.target_type, e.target_id, e.metadata
FROM dbo.audit_events e
LEFT JOIN dbo.users u ON u.id = e.actor_user_id${where.length ? `\nWHERE ${where.join('\n  AND ')}` : ''}
ORDER BY e.occurred_at DESC, e.id DESC`;
    return { sql, parameters };
  }

  /**
   * READ_COMMITTED_SNAPSHOT: without it readers take shared locks, and the services' "read, then
   * write" transactions deadlock each other under concurrent requests (the victims are answered 503).
   */
  async prerequisiteProblems(db: Queryable): Promise<string[]> {
    const problems: string[] = [];
    const rows: Array<{ rcsi: number }> = await db.query(
      'SELECT CAST(is_read_committed_snapshot_on AS int) AS rcsi FROM sys.databases WHERE database_id = DB_ID()',
    );
    if (Number(rows[0]?.rcsi) !== 1) {
      problems.push(
        'READ_COMMITTED_SNAPSHOT is OFF on this database: concurrent requests that read, then write will deadlock ' +
          'and be answered 503. Turn it on (ALTER DATABASE … SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE; docs/sqlserver.md, step 2)',
      );
    }
    // the login's effective permissions: members of db_owner or sysadmin skip the role's DENYs;
    // TRUNCATE TABLE needs ALTER here (PostgreSQL's check names TRUNCATE itself)
    const { values, parameters } = tableList(APPEND_ONLY_TABLES);
    const writable: Array<{ name: string }> = await db.query(
      `SELECT n.name
         FROM (VALUES ${values}) AS n(ord, name)
        WHERE OBJECT_ID(N'dbo.' + QUOTENAME(n.name)) IS NOT NULL
          AND (HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'UPDATE') = 1
               OR HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'DELETE') = 1
               OR HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'ALTER') = 1)
        ORDER BY n.ord`,
      parameters,
    );
    if (writable.length) {
      problems.push(
        appendOnlyProblem(
          writable.map((r) => r.name),
          'a login whose user is a member of medios_app_role only, not of db_owner nor sysadmin; docs/sqlserver.md, steps 3 and 6',
        ),
      );
    }
    return problems;
  }

  async versioningState(db: Queryable, tables: readonly string[]): Promise<VersioningState[]> {
    // temporal_type 2 = SYSTEM_VERSIONED_TEMPORAL_TABLE; history_table_id names its history table.
    const { values, parameters } = tableList(tables);
    const rows: Array<{ table_name: string; enabled: number; history_table: string | null; history_exists: number }> = await db.query(
      `SELECT n.name AS table_name,
              CASE WHEN t.temporal_type = 2 THEN 1 ELSE 0 END AS enabled,
              h.name AS history_table,
              CASE WHEN h.object_id IS NULL THEN 0 ELSE 1 END AS history_exists
         FROM (VALUES ${values}) AS n(ord, name)
         LEFT JOIN sys.tables t ON t.object_id = OBJECT_ID(N'dbo.' + QUOTENAME(n.name))
         LEFT JOIN sys.tables h ON h.object_id = t.history_table_id
        ORDER BY n.ord`,
      parameters,
    );
    return rows.map((r) => ({
      table: r.table_name,
      enabled: Number(r.enabled) === 1,
      historyTable: r.history_table,
      historyTableExists: Number(r.history_exists) === 1,
    }));
  }

  async historyRetention(db: Queryable, tables: readonly string[]): Promise<RetentionState[]> {
    // HISTORY_RETENTION_PERIOD lives on the temporal table (unit -1 INFINITE, 3 DAY, 4 WEEK,
    // 5 MONTH, 6 YEAR); the cleanup task runs only while the database's
    // TEMPORAL_HISTORY_RETENTION is ON.
    const { values, parameters } = tableList(tables);
    const rows: Array<{ table_name: string; retention: string | null; years: number | null; enforced: number }> = await db.query(
      `SELECT n.name AS table_name,
              CASE WHEN t.history_retention_period_unit = -1 THEN N'INFINITE'
                   WHEN t.history_retention_period IS NOT NULL
                   THEN CONCAT(t.history_retention_period, N' ', t.history_retention_period_unit_desc) END AS retention,
              CASE WHEN t.history_retention_period_unit = 6 THEN t.history_retention_period
                   WHEN t.history_retention_period_unit = 5 AND t.history_retention_period % 12 = 0
                   THEN t.history_retention_period / 12 END AS years,
              CAST(d.is_temporal_history_retention_enabled AS int) AS enforced
         FROM (VALUES ${values}) AS n(ord, name)
         LEFT JOIN sys.tables t ON t.object_id = OBJECT_ID(N'dbo.' + QUOTENAME(n.name))
        CROSS JOIN sys.databases d
        WHERE d.database_id = DB_ID()
        ORDER BY n.ord`,
      parameters,
    );
    return rows.map((r) => ({
      table: r.table_name,
      retention: r.retention,
      years: r.years === null ? null : Number(r.years),
      enforced: Number(r.enforced) === 1,
    }));
  }

  async partitionRanges(db: Queryable, table: EventStore): Promise<PartitionRange[]> {
    // The boundaries of the partition function behind the table's clustered index (or heap):
    // n boundaries make n + 1 partitions, the first and the last open-ended.
    const rows: Array<{ boundary: Date }> = await db.query(
      `SELECT CAST(prv.value AS datetime2(7)) AS boundary
         FROM sys.indexes i
         JOIN sys.partition_schemes ps ON ps.data_space_id = i.data_space_id
         JOIN sys.partition_range_values prv ON prv.function_id = ps.function_id
        WHERE i.object_id = OBJECT_ID(@0) AND i.index_id IN (0, 1)
        ORDER BY prv.boundary_id`,
      [new MssqlParameter(`dbo.${eventStore(table)}`, 'nvarchar', 256)],
    );
    const bounds = rows.map((r) => r.boundary);
    return [null, ...bounds].map((from, k) => ({ name: `${table} partition ${k + 1}`, from, to: bounds[k] ?? null }));
  }

  async tryJobLock(dataSource: DataSource, name: string): Promise<JobLock | null> {
    // The driver pins a connection only inside a transaction, so the lock is owned by a
    // transaction of its own that stays open (holding nothing else) while the job runs.
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    let locked = false;
    try {
      const [row]: Array<{ result: number }> = await runner.query(
        `DECLARE @result int;
EXEC @result = sp_getapplock @Resource = @0, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0;
SELECT @result AS result;`,
        [new MssqlParameter(`job:${name}`, 'nvarchar', 255)],
      );
      locked = Number(row?.result) >= 0;
    } finally {
      if (!locked) {
        await runner.rollbackTransaction().catch(() => undefined);
        await runner.release();
      }
    }
    if (!locked) return null;
    return {
      release: async () => {
        try {
          await runner.rollbackTransaction(); // ends the transaction, and with it the lock
        } finally {
          await runner.release();
        }
      },
    };
  }

  // The two purges run in procedures WITH EXECUTE AS OWNER (migrations/mssql/1763712600000-append-only.ts):
  // the service's role medios_app_role may not delete from the append-only stores nor truncate them,
  // and the procedures refuse a cutoff younger than the retention (as PostgreSQL's definer functions).

  async dropPartitionsOlderThan(db: Queryable, table: EventStore, cutoff: Date): Promise<string[]> {
    // Every non-empty partition numbered below the one that holds the cutoff (only older rows) is
    // emptied with TRUNCATE … WITH (PARTITIONS …); the boundaries stay (the function is shared).
    const [row]: Array<{ truncated: string | null }> = await db.query('EXEC dbo.purge_event_partitions @0, @1', [
      new MssqlParameter(eventStore(table), 'nvarchar', 128),
      new MssqlParameter(cutoff, 'datetime2', 7),
    ]);
    return row?.truncated ? row.truncated.split(',').map((n) => `${table} partition ${n}`) : [];
  }

  async deleteRowsOlderThan(db: Queryable, table: EventStore, cutoff: Date, chunk: number): Promise<number> {
    const [row]: Array<{ deleted: number }> = await db.query('EXEC dbo.purge_events @0, @1, @2', [
      new MssqlParameter(eventStore(table), 'nvarchar', 128),
      new MssqlParameter(cutoff, 'datetime2', 7),
      new MssqlParameter(chunk, 'int'),
    ]);
    return Number(row?.deleted ?? 0);
  }

  async deleteHistoryOlderThan(): Promise<number | null> {
    // HISTORY_RETENTION_PERIOD = 10 YEARS on each temporal table: the engine's own cleanup task
    // removes expired history rows.
    return null;
  }

  eventRows(store: EventStore, selection: EventIdSelection, columns: 'seal' | 'full'): SqlStatement {
    const t = eventStore(store);
    // style 121: yyyy-mm-dd hh:mi:ss.fffffff, all seven digits of datetime2(7)
    const time = 'CONVERT(varchar(27), occurred_at, 121) AS occurred_at';
    const fields =
      columns === 'seal'
        ? `CAST(id AS varchar(20)) AS id, ${time}, row_hash`
        : t === 'audit_events'
          ? `CAST(id AS varchar(20)) AS id, ${time}, actor_user_id, actor_role_id, ip, user_agent, LOWER(CAST(correlation_id AS char(36))) AS correlation_id, action, target_type, target_id, metadata, row_hash`
          : `CAST(id AS varchar(20)) AS id, ${time}, action, result, actor_user_id, attempted_username, session_id, failure_reason, ip, user_agent, metadata, row_hash`;
    if ('ids' in selection) {
      return {
        sql: `SELECT ${fields} FROM dbo.${t} e WHERE e.id IN (SELECT CAST(value AS bigint) FROM OPENJSON(@0)) ORDER BY e.id`,
        parameters: [new MssqlParameter(JSON.stringify(selection.ids), 'nvarchar')],
      };
    }
    return {
      sql: `SELECT ${fields} FROM dbo.${t} e WHERE e.id > @0 AND e.id <= @1 ORDER BY e.id`,
      parameters: [new MssqlParameter(String(selection.afterId), 'bigint'), new MssqlParameter(String(selection.upToId), 'bigint')],
    };
  }

  async eventIdHighWater(db: Queryable, store: EventStore): Promise<number> {
    // sys.identity_columns.last_value is NULL until the first value is drawn (IDENT_CURRENT would
    // answer the seed, 1, which is not drawn yet).
    const [row]: Array<{ v: string | null }> = await db.query(
      'SELECT CAST(CAST(last_value AS bigint) AS varchar(20)) AS v FROM sys.identity_columns WHERE object_id = OBJECT_ID(@0)',
      [new MssqlParameter(`dbo.${eventStore(store)}`, 'nvarchar', 256)],
    );
    return Number(row?.v ?? 0);
  }

  async awaitEventWriters(): Promise<boolean> {
    // sys.dm_tran_locks and sys.dm_tran_active_transactions need VIEW SERVER (PERFORMANCE) STATE,
    // which the service's login does not have: the seal job settles missing ids with
    // confirmAbsent at its next run instead.
    return false;
  }

  async confirmAbsent(db: Queryable, store: EventStore, ids: readonly number[]): Promise<number[]> {
    if (!ids.length) return [];
    // READUNCOMMITTED sees the rows of transactions still in progress: an id not there was rolled
    // back, or its INSERT is still between drawing the identity and writing the row, which one
    // statement never stretches over a whole seal interval.
    const rows: Array<{ id: string }> = await db.query(
      `SELECT CAST(id AS varchar(20)) AS id FROM dbo.${eventStore(store)} WITH (READUNCOMMITTED) WHERE id IN (SELECT CAST(value AS bigint) FROM OPENJSON(@0))`,
      [new MssqlParameter(JSON.stringify(ids), 'nvarchar')],
    );
    const present = new Set(rows.map((r) => Number(r.id)));
    return ids.filter((id) => !present.has(id));
  }

  async createDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.query(`ALTER DATABASE ${quoteIdent(name)} SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE`);
  }

  async dropDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(
      `IF DB_ID(@0) IS NOT NULL BEGIN ALTER DATABASE ${quoteIdent(name)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ${quoteIdent(name)}; END`,
      [name],
    );
  }

  poolUsage(dataSource: DataSource): PoolUsage {
    // TypeORM's driver keeps the mssql ConnectionPool as `master`; its getters read the tarn pool
    const pool = (dataSource.driver as unknown as { master?: { borrowed: number; available: number; pending: number } }).master;
    if (!pool) return { inUse: 0, idle: 0, waiting: 0 };
    return { inUse: pool.borrowed, idle: pool.available, waiting: pool.pending };
  }

  serveConnectionsInTurns(dataSource: DataSource, clientOf: () => TurnClient): void {
    // the mssql ConnectionPool lends through a tarn pool (`pool`, made when it connects), which
    // keeps the acquisitions waiting in `pendingAcquires`, an Array it push()es to and shift()s
    // from (unshift to put one back, indexOf + splice to take out one that failed)
    const tarn = (dataSource.driver as unknown as { master?: { pool?: { pendingAcquires?: unknown } | null } }).master?.pool;
    if (!tarn || !Array.isArray(tarn.pendingAcquires) || tarn.pendingAcquires.length > 0) {
      throw new Error('serveConnectionsInTurns: the mssql pool has no empty tarn pendingAcquires array (mssql or tarn changed?)');
    }
    tarn.pendingAcquires = new TurnOrder(clientOf);
  }
}

/**
 * The connection pool behind a DataSource (or a manager outside a transaction), for a request with
 * its own timeout; undefined inside a transaction, whose connection TypeORM holds (the call then
 * runs on it with the ordinary timeout).
 */
function poolOf(db: EntityManager | DataSource): MssqlPool | undefined {
  const manager = db as EntityManager;
  if (manager.queryRunner?.isTransactionActive) return undefined;
  const source = ((db as DataSource).driver ? db : manager.connection) as DataSource | undefined;
  return (source?.driver as { master?: MssqlPool } | undefined)?.master;
}

function quoteIdent(name: string): string {
  return `[${name.replace(/]/g, ']]')}]`;
}

const EVENT_STORES: ReadonlySet<string> = new Set(['audit_events', 'security_events']);

/** Only the two event stores are ever interpolated as a table name. */
function eventStore(table: EventStore): EventStore {
  if (!EVENT_STORES.has(table)) throw new Error(`not an event store: ${table}`);
  return table;
}

/** `(1, @0), (2, @1), …`: a list of table names as a derived table, in order. */
function tableList(tables: readonly string[]): { values: string; parameters: unknown[] } {
  return {
    values: tables.map((_t, i) => `(${i + 1}, @${i})`).join(', '),
    parameters: tables.map((t) => new MssqlParameter(assertIdentifier(t), 'nvarchar', 128)),
  };
}

/**
 * A canonical instant (nine fraction digits) as a datetime2(7) parameter at full precision: the
 * driver writes a Date's milliseconds plus its `nanosecondDelta` (seconds below the millisecond).
 */
export function datetime2(instant: string): MssqlParameter {
  const date = new Date(`${instant.slice(0, 23)}Z`) as Date & { nanosecondDelta?: number };
  date.nanosecondDelta = Number(instant.slice(23, 27)) / 1e7;
  return new MssqlParameter(date, 'datetime2', 7);
}
