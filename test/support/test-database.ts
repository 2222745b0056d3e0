import { it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import { type AppConfig, loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings, runMigrations } from '../../src/database/database-runtime.js';
import { type Engine, engineOf, withDatabase } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';

let databaseCounter = 0;

/** The engine this test run talks to (DATABASE_URL, or the embedded PostgreSQL). */
export function testEngine(): Engine {
  const serverUrl = process.env.TEST_SERVER_URL ?? process.env.DATABASE_URL;
  return serverUrl ? engineOf(serverUrl) : 'postgres';
}

/**
 * `it` for a test whose SQL (or whose rule) exists on one engine only. On that engine it is a
 * plain `it`; on the other engine the test is listed as skipped with the reason in its title, so
 * the run explains itself instead of failing on SQL the engine does not speak. Every test runs on
 * PostgreSQL: use it only with 'postgres' for PostgreSQL-only SQL, or give both variants with
 * `sqlFor` / `TestApp.sqlFor` instead.
 */
export function onlyOn(engine: Engine, reason: string): typeof it {
  if (testEngine() === engine) return it;
  const explained = ((name: string, fn?: unknown, timeout?: number) =>
    it.skip(`${name} [${engine === 'postgres' ? 'PostgreSQL' : 'SQL Server'} only: ${reason}]`, fn as never, timeout)) as unknown as typeof it;
  return explained;
}

/** The variant of a statement for this run's engine (for the few raw statements that differ). */
export function sqlFor(variants: { postgres: string; mssql: string }): string {
  return variants[testEngine()];
}

/** Writes `$1, $2…` placeholders in the engine's own style (`@0, @1…` on SQL Server). */
/**
 * Waits until `count` sessions other than `runner`'s wait on a lock `runner` holds (PostgreSQL: any
 * session of this database waiting on a lock while `runner` is in a transaction).
 */
async function waitUntilBlocked(runner: QueryRunner, engine: Engine, what: string, count = 1): Promise<void> {
  const probe =
    engine === 'mssql'
      ? 'SELECT COUNT(*) AS n FROM sys.dm_exec_requests WHERE blocking_session_id = @@SPID'
      : "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
  for (let i = 0; ; i++) {
    // pg_stat_activity is read once per transaction unless its snapshot is cleared
    if (engine === 'postgres') await runner.query('SELECT pg_stat_clear_snapshot()');
    if (Number((await runner.query(probe))[0].n) >= count) return;
    if (i > 2000) throw new Error(`${what} never waited on the lock`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A statement that locks one row of `table` by `id` ($1) for update until the transaction ends. */
export function lockRowSql(engine: Engine, table: string): string {
  return engine === 'mssql' ? `SELECT id FROM ${table} WITH (XLOCK, ROWLOCK) WHERE id = $1` : `SELECT id FROM ${table} WHERE id = $1 FOR UPDATE`;
}

type RunSql = (sql: string, params?: unknown[]) => Promise<unknown>;

/**
 * Stages a request racing a concurrent change at the interleaving that matters: in a transaction of
 * its own connection, `hold` writes or locks rows; the request starts and, once it waits on them,
 * `meanwhile` runs and the transaction commits. Answers the request's result. Statements take `$n`.
 */
export async function raceWithHeldRows<T>(
  db: DataSource,
  engine: Engine,
  race: {
    what: string;
    hold: (sql: RunSql) => Promise<unknown>;
    request: () => Promise<T>;
    meanwhile?: (sql: RunSql) => Promise<unknown>;
    /** how many sessions the request makes wait on the held rows before `meanwhile` runs (1) */
    waiting?: number;
  },
): Promise<T> {
  const runner = db.createQueryRunner();
  const sql: RunSql = (text, params = []) => runner.query(placeholders(engine, text), params);
  await runner.connect();
  await runner.startTransaction();
  try {
    await race.hold(sql);
    const answer = race.request();
    await waitUntilBlocked(runner, engine, race.what, race.waiting);
    await race.meanwhile?.(sql);
    await runner.commitTransaction();
    return await answer;
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    await runner.release();
  }
}

export function placeholders(engine: Engine, text: string): string {
  return engine === 'mssql' ? text.replace(/\$(\d+)/g, (_m, n: string) => `@${Number(n) - 1}`) : text;
}

/**
 * Makes every INSERT into `table` fail at the database with `message` (a trigger that raises),
 * on either engine, until the returned function restores it. For fail-closed tests.
 */
export async function makeInsertsFail(db: DataSource, engine: Engine, table: string, message: string): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  const text = message.replace(/'/g, "''");
  const trigger = `test_fail_${table}`;
  if (engine === 'mssql') {
    // an AFTER trigger that raises rolls the whole transaction back (XACT_ABORT is on in triggers)
    await db.query(`CREATE TRIGGER dbo.${trigger} ON dbo.${table} AFTER INSERT AS BEGIN SET NOCOUNT ON; THROW 50000, N'${text}', 1; END`);
    return async () => {
      await db.query(`DROP TRIGGER IF EXISTS dbo.${trigger}`);
    };
  }
  await db.query(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${text}'; END $$`);
  await db.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
  return async () => {
    await db.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
    await db.query(`DROP FUNCTION IF EXISTS ${trigger}()`);
  };
}

/**
 * A fresh database of its own for one test file: cloned from the migrated template on
 * PostgreSQL, created and migrated from scratch on SQL Server (no templates there); with
 * `migrated: false`, an empty database (what a wrong DATABASE_URL points at).
 */
export async function createTestDatabase(
  baseConfig: AppConfig = loadAppConfig(process.env),
  { migrated = true }: { migrated?: boolean } = {},
): Promise<{ name: string; url: string }> {
  const serverUrl = process.env.TEST_SERVER_URL;
  const runId = process.env.TEST_RUN_ID;
  if (!serverUrl || !runId) throw new Error('test/support/global-setup.ts did not run');
  const dialect = dialectFor(engineOf(serverUrl));
  const name = `${runId}_${process.env.JEST_WORKER_ID ?? '0'}_${process.pid}_${++databaseCounter}_${randomBytes(3).toString('hex')}`;
  const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(baseConfig, serverUrl, 'medios-test-admin')));
  await admin.initialize();
  try {
    await dialect.createDatabase(admin, name, migrated && dialect.supportsTemplates ? process.env.TEST_TEMPLATE_DB : undefined);
  } finally {
    await admin.destroy();
  }
  const url = withDatabase(serverUrl, name);
  if (migrated && !dialect.supportsTemplates) await runMigrations(baseConfig, url);
  return { name, url };
}

/** Drops a database made by createTestDatabase. */
export async function dropTestDatabase(name: string, config: AppConfig = loadAppConfig(process.env)): Promise<void> {
  const serverUrl = process.env.TEST_SERVER_URL as string;
  const dialect = dialectFor(engineOf(serverUrl));
  const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(config, serverUrl, 'medios-test-admin')));
  await admin.initialize();
  try {
    await dialect.dropDatabase(admin, name);
  } finally {
    await admin.destroy();
  }
}

/**
 * A migrated database without the application, for tests of the schema itself: `db` is a plain
 * TypeORM DataSource on it, `query` takes `$n` placeholders on either engine.
 */
export class TestDatabase {
  private constructor(
    readonly db: DataSource,
    readonly engine: Engine,
    readonly name: string,
  ) {}

  static async create(): Promise<TestDatabase> {
    const config = loadAppConfig(process.env);
    const { name, url } = await createTestDatabase(config);
    const engine = engineOf(url);
    const db = new DataSource(dialectFor(engine).dataSourceOptions(connectionSettings(config, url, 'medios-test-schema')));
    await db.initialize();
    return new TestDatabase(db, engine, name);
  }

  query<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.db.query(placeholders(this.engine, text), params);
  }

  makeInsertsFail(table: string, message: string): Promise<() => Promise<void>> {
    return makeInsertsFail(this.db, this.engine, table, message);
  }

  async close(): Promise<void> {
    await this.db.destroy();
    await dropTestDatabase(this.name);
  }
}
