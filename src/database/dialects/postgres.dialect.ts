import { createHash } from 'node:crypto';
import { type TurnClient, TurnOrder } from '../../common/concurrency/turn-order.js';
import type { DataSource, DataSourceOptions, EntityManager } from 'typeorm';
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

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  // the database refuses connections for now: ALLOW_CONNECTIONS false, or the server's connection limit
  '55000',
  '53300',
]);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Every pooled client keeps an 'error' listener for its whole life. pg-pool takes its own listener
 * off a client it hands out, so a connection the database ends while no query runs on it (a
 * restart or failover during a transaction, or while a job holds its lock) would emit an 'error'
 * nobody hears, and that ends the process. Heard here, the loss still fails that client's next
 * statement as a connection failure (a 503), and the pool drops the client when it comes back.
 */
function listenForConnectionLoss(client: { on(event: 'error', listener: () => void): unknown }): void {
  client.on('error', () => {});
}

const monthStart = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;

export class PostgresDialect implements SqlDialect {
  readonly engine = 'postgres' as const;
  readonly supportsTemplates = true;

  dataSourceOptions(s: ConnectionSettings): DataSourceOptions {
    return {
      type: 'postgres',
      url: s.url,
      applicationName: s.applicationName,
      poolSize: s.poolSize,
      connectTimeoutMS: s.connectTimeoutMs,
      extra: {
        max: s.poolSize,
        connectionTimeoutMillis: s.connectTimeoutMs,
        idleTimeoutMillis: 30_000,
        statement_timeout: s.statementTimeoutMs,
        query_timeout: s.statementTimeoutMs + 1000,
        onConnect: listenForConnectionLoss,
        options: [
          '-c TimeZone=UTC',
          ...(s.role ? [`-c role=${assertIdentifier(s.role)}`] : []),
          // nothing can write through a replica's pool, even one pointed at a primary by mistake
          ...(s.readOnly ? ['-c default_transaction_read_only=on'] : []),
        ].join(' '),
      },
    };
  }

  async replicaLagSeconds(replica: DataSource): Promise<number | null> {
    // An idle primary sends no new transactions, so `now() - last replay` grows although the
    // standby misses nothing: when everything received has been replayed the lag is 0.
    const [row]: Array<{ lag: number | string | null }> = await replica.query(
      `SELECT CASE
                WHEN NOT pg_is_in_recovery() THEN 0
                WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8
              END AS lag`,
    );
    return row?.lag === null || row?.lag === undefined ? null : Math.max(0, Number(row.lag));
  }

  isUniqueViolation(err: unknown): boolean {
    return errorCode(err) === '23505';
  }

  isTransientConflict(err: unknown): boolean {
    // serialization_failure, deadlock_detected
    const code = errorCode(err);
    return code === '40001' || code === '40P01';
  }

  isTimedOut(err: unknown): boolean {
    // query_canceled (statement_timeout, or a cancel from outside), lock_not_available (lock_timeout)
    const code = errorCode(err);
    return code === '57014' || code === '55P03';
  }

  isConnectionFailure(err: unknown): boolean {
    if (isReleasedRunner(err)) return true;
    const code = errorCode(err);
    if (code && CONNECTION_ERROR_CODES.has(code)) return true;
    const message = err instanceof Error ? err.message : '';
    // "Query read timeout": pg's own limit (query_timeout, the statement timeout and a second) on a
    // server that stopped answering at all — a hung server or a network partition
    return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|ECONNREFUSED|^Query read timeout$/i.test(
      message,
    );
  }

  async ensureMonthlyPartitions(
    db: EntityManager | DataSource,
    table: 'audit_events' | 'security_events',
    firstMonth: Date,
    lastMonth: Date,
  ): Promise<number> {
    const rows: Array<{ created: number }> = await db.query('SELECT ensure_monthly_partitions($1, $2::date, $3::date) AS created', [
      table,
      monthStart(firstMonth),
      monthStart(lastMonth),
    ]);
    return Number(rows[0]?.created ?? 0);
  }

  async transactionLock(db: EntityManager, resource: string, mode: 'shared' | 'exclusive'): Promise<void> {
    const fn = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
    await db.query(`SELECT ${fn}($1::bigint)`, [advisoryKey(resource)]);
  }

  async selectAsOf<T>(
    db: EntityManager | DataSource,
    table: VersionedTable,
    columns: readonly string[],
    where: Readonly<Record<string, string | number>>,
    asOf: string,
  ): Promise<T[]> {
    // The versioning trigger keeps each replaced version in <table>_history with its validity
    // closed: [from, to). A version valid at the instant is either still current or in history.
    // The instant is cut to microseconds, the periods' precision: a version that began at or
    // before it began at or before the instant itself.
    const cols = columns.map((c) => quoteIdent(assertIdentifier(c))).join(', ');
    const params: unknown[] = [pgInstant(asOf)];
    const filter = ['sys_period @> $1::timestamptz'];
    for (const [column, value] of Object.entries(where)) {
      params.push(value);
      filter.push(`${quoteIdent(assertIdentifier(column))} = $${params.length}`);
    }
    const condition = filter.join(' AND ');
    return db.query(
      `SELECT ${cols} FROM ${quoteIdent(table)} WHERE ${condition}
       UNION ALL
       SELECT ${cols} FROM ${quoteIdent(`${table}_history`)} WHERE ${condition}`,
      params,
    );
  }

  insertStatement(table: string, columns: readonly string[], returning: readonly string[] = []): string {
    const names = columns.map(assertIdentifier);
    const output = returning.length ? ` RETURNING ${returning.map(assertIdentifier).join(', ')}` : '';
    return `INSERT INTO ${assertIdentifier(table)} (${names.join(', ')}) VALUES (${names.map((c) => `:${c}`).join(', ')})${output}`;
  }

  jsonArrayContains(document: string, key: string, value: string): string {
    const column = document.split('.').map(assertIdentifier).join('.');
    if (!/^:[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw new Error(`not a :named parameter: ${value}`);
    // the document is stored as text (the same on both engines): cast, then jsonb containment
    return `((CAST(${column} AS jsonb) -> '${assertIdentifier(key)}') @> jsonb_build_array(CAST(${value} AS text)))`;
  }

  auditEventsPage(q: AuditPageQuery): SqlStatement {
    const parameters: unknown[] = [];
    const param = (value: unknown) => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const where: string[] = [];
    if (q.actorUserId !== undefined) where.push(`e.actor_user_id = ${param(q.actorUserId)}`);
    if (q.action !== undefined) where.push(`e.action = ${param(q.action)}`);
    if (q.targetType !== undefined) where.push(`e.target_type = ${param(q.targetType)}`);
    if (q.targetId !== undefined) where.push(`e.target_id = ${param(q.targetId)}`);
    if (q.from !== undefined) where.push(`e.occurred_at >= ${param(pgInstant(ceilInstant(q.from, 6)))}::timestamptz`);
    if (q.to !== undefined) where.push(`e.occurred_at <= ${param(pgInstant(q.to))}::timestamptz`);
    if (q.after) {
      const t = param(pgInstant(q.after.t));
      const id = param(q.after.id);
      // The plain bound lets the planner prune the newer partitions; the row comparison is the
      // exact keyset position and an index condition of every (…, occurred_at, id) index.
      where.push(`e.occurred_at <= ${t}::timestamptz`, `(e.occurred_at, e.id) < (${t}::timestamptz, ${id}::bigint)`);
    }
    const sql = `SELECT e.id::text AS id,
       to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS occurred_at,
       e.actor_user_id, u.username AS actor_username, e.actor_role_id, e.ip, e.user_agent,
       e.correlation_id::text AS correlation_id, e.action, e.target_type, e.target_id, e.metadata::text AS metadata
FROM audit_events e
LEFT JOIN users u ON u.id = e.actor_user_id${where.length ? `\nWHERE ${where.join('\n  AND ')}` : ''}
ORDER BY e.occurred_at DESC, e.id DESC
LIMIT ${param(q.rows)}`;
    return { sql, parameters };
  }

  /**
   * Only the service role's rights: PostgreSQL's readers never block writers, and no database
   * option changes that (SQL Server's READ_COMMITTED_SNAPSHOT).
   */
  async prerequisiteProblems(db: Queryable): Promise<string[]> {
    // privileges of the role the session runs as: DATABASE_APP_ROLE's when the pool switches to it
    const rows: Array<{ name: string }> = await db.query(
      `SELECT t.name FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord)
        WHERE to_regclass(t.name) IS NOT NULL
          AND (has_table_privilege(t.name, 'UPDATE') OR has_table_privilege(t.name, 'DELETE') OR has_table_privilege(t.name, 'TRUNCATE'))
        ORDER BY t.ord`,
      [APPEND_ONLY_TABLES],
    );
    return rows.length
      ? [
          appendOnlyProblem(
            rows.map((r) => r.name),
            'set DATABASE_APP_ROLE=medios_app; docs/operations.md',
          ),
        ]
      : [];
  }

  async versioningState(db: Queryable, tables: readonly string[]): Promise<VersioningState[]> {
    // Versioning is the `versioning` trigger (enabled: 'O' origin or 'A' always; 'D' is disabled,
    // 'R' fires only on replicas) plus the table's row in the system_versioning registry.
    const rows: Array<{ table_name: string; enabled: boolean; history_table: string | null; history_exists: boolean }> = await db.query(
      `SELECT t.name AS table_name,
              sv.table_name IS NOT NULL AND EXISTS (
                SELECT 1 FROM pg_trigger tg
                 WHERE tg.tgrelid = to_regclass(t.name) AND tg.tgname = 'versioning'
                   AND tg.tgenabled IN ('O', 'A') AND tg.tgfoid = to_regproc('versioning')) AS enabled,
              sv.history_table,
              sv.history_table IS NOT NULL AND to_regclass(sv.history_table) IS NOT NULL AS history_exists
         FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord)
         LEFT JOIN system_versioning sv ON sv.table_name = t.name
        ORDER BY t.ord`,
      [tables],
    );
    return rows.map((r) => ({ table: r.table_name, enabled: r.enabled, historyTable: r.history_table, historyTableExists: r.history_exists }));
  }

  async historyRetention(db: Queryable, tables: readonly string[]): Promise<RetentionState[]> {
    // The retention is recorded in system_versioning and enforced by the retention job.
    const rows: Array<{ table_name: string; retention: string | null; years: number | null }> = await db.query(
      `SELECT t.name AS table_name, sv.retention::text AS retention,
              CASE WHEN date_trunc('year', sv.retention) = sv.retention THEN extract(year FROM sv.retention)::int END AS years
         FROM unnest($1::text[]) WITH ORDINALITY AS t(name, ord)
         LEFT JOIN system_versioning sv ON sv.table_name = t.name
        ORDER BY t.ord`,
      [tables],
    );
    return rows.map((r) => ({ table: r.table_name, retention: r.retention, years: r.years === null ? null : Number(r.years), enforced: true }));
  }

  async partitionRanges(db: Queryable, table: EventStore): Promise<PartitionRange[]> {
    // Bounds as pg_get_expr prints them: FOR VALUES FROM ('…') TO ('…'); MINVALUE/MAXVALUE and a
    // DEFAULT partition have no quoted literal and come back open-ended (null).
    const rows: Array<{ name: string; range_from: Date | null; range_to: Date | null }> = await db.query(
      `SELECT c.relname AS name,
              (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS range_from,
              (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS range_to
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = to_regclass($1)
        ORDER BY range_from NULLS FIRST`,
      [eventStore(table)],
    );
    return rows.map((r) => ({ name: r.name, from: r.range_from, to: r.range_to }));
  }

  async tryJobLock(dataSource: DataSource, name: string): Promise<JobLock | null> {
    // A session-level advisory lock on a connection of its own, held while the job runs on other
    // connections; it dies with that connection if the process does.
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [row]: Array<{ locked: boolean }> = await runner.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [advisoryKey(`job:${name}`)]);
      if (!row?.locked) {
        await runner.release();
        return null;
      }
    } catch (err) {
      await runner.release();
      throw err;
    }
    return {
      release: async () => {
        try {
          await runner.query('SELECT pg_advisory_unlock($1::bigint)', [advisoryKey(`job:${name}`)]);
        } finally {
          await runner.release();
        }
      },
    };
  }

  // The three purges run in functions owned by the schema owner with definer rights
  // (migrations/postgres/1763712600000-append-only.ts): the service's role may not delete from the
  // append-only stores or their history, nor drop tables, and the functions refuse a cutoff younger
  // than the retention.

  async dropPartitionsOlderThan(db: Queryable, table: EventStore, cutoff: Date): Promise<string[]> {
    const [row]: Array<{ dropped: string[] | null }> = await db.query('SELECT purge_event_partitions($1, $2) AS dropped', [
      eventStore(table),
      cutoff,
    ]);
    return row?.dropped ?? [];
  }

  async deleteRowsOlderThan(db: Queryable, table: EventStore, cutoff: Date, chunk: number): Promise<number> {
    const [row]: Array<{ deleted: number }> = await db.query('SELECT purge_events($1, $2, $3) AS deleted', [eventStore(table), cutoff, chunk]);
    return Number(row?.deleted ?? 0);
  }

  async deleteHistoryOlderThan(db: Queryable, table: string, cutoff: Date, chunk: number): Promise<number | null> {
    // PostgreSQL has no native history retention: versions whose validity ended before the cutoff go.
    const [row]: Array<{ deleted: number }> = await db.query('SELECT purge_history($1, $2, $3) AS deleted', [assertIdentifier(table), cutoff, chunk]);
    return Number(row?.deleted ?? 0);
  }

  eventRows(store: EventStore, selection: EventIdSelection, columns: 'seal' | 'full'): SqlStatement {
    const t = eventStore(store);
    // to_char writes a year before Christ as that year: marked, it reads as no timestamp (a row moved
    // there would else hash as the event it was); no service writes one, and SQL Server stores none
    const time = `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || CASE WHEN occurred_at < '0001-01-01T00:00:00Z' THEN ' BC' ELSE '' END AS occurred_at`;
    const fields =
      columns === 'seal'
        ? `id::text AS id, ${time}, row_hash`
        : t === 'audit_events'
          ? `id::text AS id, ${time}, actor_user_id, actor_role_id, ip, user_agent, correlation_id::text AS correlation_id, action, target_type, target_id, metadata::text AS metadata, row_hash`
          : `id::text AS id, ${time}, action, result, actor_user_id, attempted_username, session_id, failure_reason, ip, user_agent, metadata::text AS metadata, row_hash`;
    if ('ids' in selection) {
      return { sql: `SELECT ${fields} FROM ${t} e WHERE e.id = ANY($1::bigint[]) ORDER BY e.id`, parameters: [selection.ids.map(String)] };
    }
    return {
      sql: `SELECT ${fields} FROM ${t} e WHERE e.id > $1::bigint AND e.id <= $2::bigint ORDER BY e.id`,
      parameters: [String(selection.afterId), String(selection.upToId)],
    };
  }

  async eventIdHighWater(db: Queryable, store: EventStore): Promise<number> {
    // pg_sequence_last_value is null until the first nextval. The sequence keeps the default
    // CACHE 1, so no session holds ids below this value for later use.
    const [row]: Array<{ v: string | null }> = await db.query(
      `SELECT pg_sequence_last_value(pg_get_serial_sequence($1, 'id')::regclass)::text AS v`,
      [eventStore(store)],
    );
    return Number(row?.v ?? 0);
  }

  async awaitEventWriters(dataSource: DataSource, store: EventStore, timeoutMs: number): Promise<boolean> {
    // An INSERT takes RowExclusiveLock on the partitioned parent before the id default
    // (nextval) runs, and keeps it until its transaction ends. So a transaction that drew an id
    // before this call and has not ended yet is among the holders listed now; when none of them
    // holds the lock any more, each has committed (its rows visible to any later snapshot: a
    // backend leaves the proc array before it releases its locks) or rolled back.
    const holders = `FROM pg_locks l
       WHERE l.locktype = 'relation' AND l.mode = 'RowExclusiveLock'
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.relation = to_regclass($1)`;
    const [row]: Array<{ vx: string[] }> = await dataSource.query(
      `SELECT coalesce(array_agg(DISTINCT l.virtualtransaction), '{}') AS vx ${holders} AND l.pid IS DISTINCT FROM pg_backend_pid()`,
      [eventStore(store)],
    );
    const writers = row?.vx ?? [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!writers.length) return true;
      const [left]: Array<{ n: number }> = await dataSource.query(`SELECT count(*)::int AS n ${holders} AND l.virtualtransaction = ANY($2::text[])`, [
        eventStore(store),
        writers,
      ]);
      if (!left?.n) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async confirmAbsent(): Promise<number[]> {
    return [];
  }

  async createDatabase(admin: DataSource, name: string, template?: string): Promise<void> {
    const ident = quoteIdent(name);
    const sql = template ? `CREATE DATABASE ${ident} TEMPLATE ${quoteIdent(template)}` : `CREATE DATABASE ${ident}`;
    // Cloning a template fails while another session is connected to it; retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(sql);
        return;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
        await new Promise((r) => setTimeout(r, 100 + attempt * 50));
      }
    }
  }

  async dropDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  }

  poolUsage(dataSource: DataSource): PoolUsage {
    // TypeORM's driver keeps the pg Pool as `master`
    const pool = (dataSource.driver as unknown as { master?: { totalCount: number; idleCount: number; waitingCount: number } }).master;
    if (!pool) return { inUse: 0, idle: 0, waiting: 0 };
    return { inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  serveConnectionsInTurns(dataSource: DataSource, clientOf: () => TurnClient): void {
    // pg-pool keeps the acquisitions waiting for a connection in `_pendingQueue`, an Array it
    // push()es to and shift()s from (findIndex + splice for one that timed out)
    const pool = (dataSource.driver as unknown as { master?: { _pendingQueue?: unknown } }).master;
    if (!pool || !Array.isArray(pool._pendingQueue) || pool._pendingQueue.length > 0) {
      throw new Error('serveConnectionsInTurns: the pg pool has no empty _pendingQueue array (pg-pool changed?)');
    }
    pool._pendingQueue = new TurnOrder(clientOf);
  }
}

/** A stable 64-bit advisory-lock key for a resource name (first 8 bytes of its SHA-256). */
function advisoryKey(resource: string): string {
  return createHash('sha256').update(resource).digest().readBigInt64BE(0).toString();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const EVENT_STORES: ReadonlySet<string> = new Set(['audit_events', 'security_events']);

/** Only the two event stores are ever interpolated as a table name. */
function eventStore(table: EventStore): EventStore {
  if (!EVENT_STORES.has(table)) throw new Error(`not an event store: ${table}`);
  return table;
}

/** A canonical instant (nine fraction digits) cut to PostgreSQL's microseconds. */
function pgInstant(instant: string): string {
  return `${instant.slice(0, 26)}Z`;
}
