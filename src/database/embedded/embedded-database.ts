import pg from 'pg';
import { withDatabase } from '../database-url.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

/** the database the service keeps its tables in, inside the embedded cluster */
export const EMBEDDED_DATABASE = 'medios';
const CONNECT_TIMEOUT_MS = 5000;

export interface EmbeddedDatabase {
  /** connection URL of the service's database */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the embedded PostgreSQL under `dataDir` and creates the service's database on its first
 * start. It loads nothing but `pg` and `embedded-postgres`, so the server calls it before it loads
 * the application's modules: once `onLaunched` says the postmaster's process exists, PostgreSQL
 * boots in it while this process loads and compiles them (start to ready, BENCHMARKS.md).
 */
export async function startEmbeddedDatabase(
  dataDir: string,
  log: (msg: string) => void = () => {},
  onLaunched?: () => void,
): Promise<EmbeddedDatabase> {
  // PostgreSQL's own routine LOG lines stay out of the service's output; its problems do not.
  const pgLog = (msg: string) => {
    if (!msg.startsWith('[postgres]') && !msg.startsWith('[initdb]')) return log(msg);
    if (/\b(ERROR|FATAL|PANIC|WARNING)\b/.test(msg)) log(msg);
  };
  const server = await startEmbeddedPostgres({ dataDir, log: pgLog, onLaunched });
  try {
    await ensureDatabase(server.url);
  } catch (err) {
    await server.stop();
    throw err;
  }
  log(`database: embedded PostgreSQL on 127.0.0.1:${server.port}, data in ${dataDir}`);
  return { url: withDatabase(server.url, EMBEDDED_DATABASE), port: server.port, stop: () => server.stop() };
}

async function ensureDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'medios-admin-bootstrap', connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}
