import { DataSource, type MigrationInterface } from 'typeorm';
import type { AppConfig } from '../common/config/index.js';
import { engineOf, type Engine, redactUrl } from './database-url.js';
import { dialectFor, type ConnectionSettings, type SqlDialect } from './dialects/index.js';
import { type EmbeddedDatabase, startEmbeddedDatabase } from './embedded/embedded-database.js';
import { migrationsFor } from './migrations.js';

/** The database the process talks to: from DATABASE_URL, or an embedded PostgreSQL it started. */
export interface DatabaseRuntime {
  url: string;
  engine: Engine;
  dialect: SqlDialect;
  embedded: boolean;
  /** stops the embedded PostgreSQL (no-op for an external server) */
  stop(): Promise<void>;
}

export const DATABASE_RUNTIME = Symbol('DATABASE_RUNTIME');

/**
 * DATABASE_URL's server, or else the embedded PostgreSQL: `embedded` when the caller already
 * started it (the server does, before it loads the application), started here otherwise.
 */
export async function resolveDatabase(
  config: AppConfig,
  log: (msg: string) => void = () => {},
  embedded?: Promise<EmbeddedDatabase>,
): Promise<DatabaseRuntime> {
  if (config.databaseUrl) {
    const engine = engineOf(config.databaseUrl);
    log(`database: ${engine} at ${redactUrl(config.databaseUrl)}`);
    return { url: config.databaseUrl, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} };
  }
  const database = await (embedded ?? startEmbeddedDatabase(config.dataDir, log));
  return { url: database.url, engine: 'postgres', dialect: dialectFor('postgres'), embedded: true, stop: () => database.stop() };
}

export function connectionSettings(config: AppConfig, url: string, applicationName = 'medios-admin-api'): ConnectionSettings {
  return {
    url,
    poolSize: config.db.poolSize,
    statementTimeoutMs: config.db.statementTimeoutMs,
    connectTimeoutMs: 5000,
    applicationName,
  };
}

/**
 * A data source that runs `migrations` (by default every migration of the URL's engine) as the
 * CLI's `migrate` does: each migration in its own transaction.
 */
export async function withMigrations<T>(
  config: AppConfig,
  url: string,
  use: (ds: DataSource) => Promise<T>,
  migrations: ReadonlyArray<new () => MigrationInterface> = migrationsFor(engineOf(url)),
): Promise<T> {
  const ds = new DataSource({
    ...dialectFor(engineOf(url)).dataSourceOptions(connectionSettings(config, url, 'medios-admin-migrations')),
    migrations: [...migrations],
    migrationsTransactionMode: 'each',
  } as never);
  await ds.initialize();
  try {
    return await use(ds);
  } finally {
    await ds.destroy();
  }
}

/** Applies pending migrations (the CLI's `migrate`, and the test harness's template database). */
export function runMigrations(config: AppConfig, url: string, log: (msg: string) => void = () => {}): Promise<string[]> {
  return withMigrations(config, url, async (ds) => {
    const applied = await ds.runMigrations({ transaction: 'each' });
    for (const m of applied) log(`migration applied: ${m.name}`);
    return applied.map((m) => m.name);
  });
}

/**
 * Reverts the last applied migration (the CLI's `migrate:revert`): its `down()` in one
 * transaction. The name of the migration reverted, or undefined when none is applied.
 */
export function revertLastMigration(config: AppConfig, url: string, log: (msg: string) => void = () => {}): Promise<string | undefined> {
  return withMigrations(config, url, async (ds) => {
    // TypeORM's undo returns nothing: what it reverted is the name no longer recorded
    const applied = async (): Promise<string[]> =>
      ds.query('SELECT name FROM migrations').then(
        (rows: Array<{ name: string }>) => rows.map((r) => r.name),
        () => [], // no migrations table: nothing was ever applied
      );
    const before = await applied();
    if (!before.length) return undefined;
    await ds.undoLastMigration({ transaction: 'each' });
    const after = new Set(await applied());
    const reverted = before.find((name) => !after.has(name));
    if (reverted) log(`migration reverted: ${reverted}`);
    return reverted;
  });
}
