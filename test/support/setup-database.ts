import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { generateRsaKeyPair } from '../../src/auth/jwt-keys.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings, runMigrations } from '../../src/database/database-runtime.js';
import { engineOf, redactUrl, withDatabase } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { startEmbeddedPostgres } from '../../src/database/embedded/embedded-postgres.js';
import { TEST_ENV_DEFAULTS } from './test-env.js';

/**
 * SQL Server has no template databases: each test file creates its database and runs the
 * migrations itself (TestApp.create). Fail early, with a message, when the server is older than
 * 2019 (temporal HISTORY_RETENTION_PERIOD and the rest need 15.x) or the login cannot create
 * databases.
 */
async function checkSqlServer(dialect: ReturnType<typeof dialectFor>, config: ReturnType<typeof loadAppConfig>, serverUrl: string): Promise<void> {
  const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(config, serverUrl, 'medios-test-setup')));
  await admin.initialize();
  try {
    const [info]: Array<{ major: number; version: string; can_create: number }> = await admin.query(
      `SELECT CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS major,
              CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version,
              HAS_PERMS_BY_NAME(NULL, NULL, 'CREATE ANY DATABASE') AS can_create`,
    );
    if (!info || info.major < 15)
      throw new Error(`SQL Server 2019 (15.x) or newer is required; ${redactUrl(serverUrl)} is ${info?.version ?? 'unknown'}`);
    if (info.can_create !== 1)
      throw new Error(
        `the login of ${redactUrl(serverUrl)} cannot CREATE DATABASE (each test file creates and drops its own database): grant dbcreator or use sa`,
      );
  } finally {
    await admin.destroy();
  }
}

/**
 * Once per `npm test`: a database server (the embedded PostgreSQL in a fresh temp dir, or the
 * server of DATABASE_URL), and on PostgreSQL a template database with every migration applied,
 * which each test file clones (CREATE DATABASE … TEMPLATE) so files run in parallel in isolation.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  for (const [k, v] of Object.entries(TEST_ENV_DEFAULTS)) process.env[k] ??= v;
  if (!process.env.JWT_PRIVATE_KEY) {
    const pair = generateRsaKeyPair();
    process.env.JWT_PRIVATE_KEY = pair.privateKeyPem;
    process.env.JWT_PUBLIC_KEY = pair.publicKeyPem;
  }
  // the audit seals' key, as production requires one (and so no test writes a key into ./.data)
  process.env.AUDIT_SIGNING_KEY ??= generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const runId = `t${Date.now().toString(36)}_${process.pid}`;
  process.env.TEST_RUN_ID = runId;

  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), 'medios-test-'));
    const pg = await startEmbeddedPostgres({ dataDir });
    (globalThis as { __EMBEDDED_PG__?: unknown }).__EMBEDDED_PG__ = pg;
    process.env.TEST_EMBEDDED_DATA_DIR = dataDir;
    serverUrl = pg.url;
    process.env.DATABASE_URL = serverUrl;
  }
  process.env.TEST_SERVER_URL = serverUrl;
  const engine = engineOf(serverUrl);
  const dialect = dialectFor(engine);
  const config = loadAppConfig(process.env);

  if (engine === 'mssql') await checkSqlServer(dialect, config, serverUrl);

  if (dialect.supportsTemplates) {
    const template = `${runId}_tpl`;
    const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(config, serverUrl, 'medios-test-setup')));
    await admin.initialize();
    try {
      await dialect.createDatabase(admin, template);
    } finally {
      await admin.destroy();
    }
    await runMigrations(config, withDatabase(serverUrl, template));
    process.env.TEST_TEMPLATE_DB = template;
  }
  process.stdout.write(`\n[test setup] ${engine} at ${redactUrl(serverUrl)}, ready in ${Date.now() - started} ms\n`);
}
