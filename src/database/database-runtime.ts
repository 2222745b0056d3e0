import { DataSource } from 'typeorm';
import type { AppConfig } from '../common/config/index.js';
import { engineOf, type Engine, redactUrl, withDatabase } from './database-url.js';
import { dialectFor, type ConnectionSettings, type SqlDialect } from './dialects/index.js';
import { startEmbeddedPostgres } from './embedded/embedded-postgres.js';
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
const EMBEDDED_DATABASE = 'medios';

export async function resolveDatabase(config: AppConfig, log: (msg: string) => void = () => {}): Promise<DatabaseRuntime> {
  if (config.databaseUrl) {
    const engine = engineOf(config.databaseUrl);
    log(`database: ${engine} at ${redactUrl(config.databaseUrl)}`);
    return { url: config.databaseUrl, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} };
  }
  // PostgreSQL's own routine LOG lines stay out of the service's output; its problems do not.
  const pgLog = (msg: string) => {
    if (!msg.startsWith('[postgres]') && !msg.startsWith('[initdb]')) return log(msg);
    if (/\b(ERROR|FATAL|PANIC|WARNING)\b/.test(msg)) log(msg);
  };
  const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, log: pgLog });
  const dialect = dialectFor('postgres');
  const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(config, pg.url, 'medios-admin-bootstrap')));
  try {
    await admin.initialize();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (!exists.length) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } catch (err) {
    await pg.stop();
    throw err;
  } finally {
    if (admin.isInitialized) await admin.destroy();
  }
  log(`database: embedded PostgreSQL on 127.0.0.1:${pg.port}, data in ${config.dataDir}`);
  return { url: withDatabase(pg.url, EMBEDDED_DATABASE), engine: 'postgres', dialect, embedded: true, stop: () => pg.stop() };
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
