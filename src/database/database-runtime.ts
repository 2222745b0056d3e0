import { DataSource } from 'typeorm';
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

/** Applies pending migrations (the CLI's `migrate`, and the test harness's template database). */
export async function runMigrations(config: AppConfig, url: string, log: (msg: string) => void = () => {}): Promise<string[]> {
  const engine = engineOf(url);
  const ds = new DataSource({
    ...dialectFor(engine).dataSourceOptions(connectionSettings(config, url, 'medios-admin-migrations')),
    migrations: migrationsFor(engine),
    migrationsTransactionMode: 'each',
  } as never);
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    for (const m of applied) log(`migration applied: ${m.name}`);
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}
