import { rmSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings } from '../../src/database/database-runtime.js';
import { engineOf } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import type { EmbeddedPostgresHandle } from '../../src/database/embedded/embedded-postgres.js';

/** Drops what the run created on the server and stops the embedded PostgreSQL. */
export default async function globalTeardown(): Promise<void> {
  const serverUrl = process.env.TEST_SERVER_URL;
  const runId = process.env.TEST_RUN_ID;
  const embedded = (globalThis as { __EMBEDDED_PG__?: EmbeddedPostgresHandle }).__EMBEDDED_PG__;
  if (serverUrl && runId && !embedded) {
    const dialect = dialectFor(engineOf(serverUrl));
    const admin = new DataSource(dialect.dataSourceOptions(connectionSettings(loadAppConfig(process.env), serverUrl, 'medios-test-teardown')));
    await admin.initialize();
    try {
      const names: Array<{ name: string }> =
        dialect.engine === 'postgres'
          ? await admin.query(`SELECT datname AS name FROM pg_database WHERE datname LIKE $1`, [`${runId}%`])
          : await admin.query(`SELECT name FROM sys.databases WHERE name LIKE @0`, [`${runId.replace(/[_[%]/g, '[$&]')}%`]);
      for (const { name } of names) await dialect.dropDatabase(admin, name);
    } finally {
      await admin.destroy();
    }
  }
  if (embedded) {
    await embedded.stop();
    if (process.env.TEST_EMBEDDED_DATA_DIR) rmSync(process.env.TEST_EMBEDDED_DATA_DIR, { recursive: true, force: true });
  }
}
