import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EMBEDDED_DATABASE, type EmbeddedDatabase, startEmbeddedDatabase } from './embedded-database.js';

/** The service's database in a real embedded cluster, started the way the server starts it. */
describe('startEmbeddedDatabase', () => {
  const started: EmbeddedDatabase[] = [];
  let dataDir: string | undefined;

  afterAll(async () => {
    for (const database of started) await database.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function currentDatabase(url: string): Promise<string> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ name: string }>('select current_database() as name')).rows[0]!.name;
    } finally {
      await client.end();
    }
  }

  it('says when the postmaster is launched, boots while the event loop is busy, and creates the database once', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-db-spec-'));
    const events: string[] = [];
    const logs: string[] = [];
    let launched!: () => void;
    const postmasterLaunched = new Promise<void>((resolve) => (launched = resolve));

    const starting = startEmbeddedDatabase(
      dataDir,
      (m) => logs.push(m),
      () => {
        events.push('launched');
        launched();
      },
    );
    void starting.then(() => events.push('ready'));
    await postmasterLaunched;
    // what the server does meanwhile: load its modules, with no turn of the event loop for seconds
    const busyUntil = Date.now() + 1500;
    while (Date.now() < busyUntil);
    const first = await starting;
    started.push(first);

    expect(events).toEqual(['launched', 'ready']);
    expect(new URL(first.url).pathname).toBe(`/${EMBEDDED_DATABASE}`);
    await expect(currentDatabase(first.url)).resolves.toBe(EMBEDDED_DATABASE);
    expect(logs).toContain(`database: embedded PostgreSQL on 127.0.0.1:${first.port}, data in ${dataDir}`);
    expect(logs.filter((l) => l.startsWith('[postgres]'))).toEqual([]); // routine server lines stay out
    await first.stop();

    // the database exists now: a restart finds it instead of creating it again
    const second = await startEmbeddedDatabase(dataDir);
    started.push(second);
    await expect(currentDatabase(second.url)).resolves.toBe(EMBEDDED_DATABASE);
    await second.stop();
  });
});
