import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, startServer } from '../reliability/support/built-server.js';

/**
 * `npm start` on a fresh machine: the built server with no DATABASE_URL starts its own embedded
 * PostgreSQL under DATA_DIR — booting it while the server loads its modules — becomes ready,
 * and stops it again on SIGTERM. A DATA_DIR it cannot use ends the start at once, with nothing
 * left running. Node's compile cache is off unless NODE_COMPILE_CACHE asks for it; then the server
 * flushes it once the modules are loaded (which frees its in-memory copies), so its files exist
 * while the server still runs.
 */
describe('the built server on the embedded database', () => {
  let main: string;
  let dataDir: string;

  beforeAll(() => {
    main = ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'medios-embedded-start-'));
  }, 180_000);

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** the built server as `npm start` runs it: development, no DATABASE_URL */
  const start = (dir: string, env: Record<string, string> = {}) =>
    startServer(main, '', 'embedded-start', { NODE_ENV: 'development', DATA_DIR: dir, ...env });

  function messages(output: string): string[] {
    return output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  }

  it('starts PostgreSQL, answers ready, and stops both on SIGTERM', async () => {
    const server = await start(dataDir);
    try {
      const ready = await fetch(`http://127.0.0.1:${server.port}/health/ready`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('ok');
    } finally {
      server.child.kill('SIGTERM');
    }
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });

    const said = messages(server.output());
    const postmaster = said.map((m) => /^embedded PostgreSQL ready on 127\.0\.0\.1:\d+ \(pid (\d+)/.exec(m)).find(Boolean);
    expect(postmaster).toBeDefined();
    const order = [
      'embedded PostgreSQL ready',
      'database: embedded PostgreSQL on',
      'listening on',
      'embedded PostgreSQL stopped',
      'shutdown complete',
    ];
    const at = order.map((prefix) => said.findIndex((m) => m.startsWith(prefix)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // the postmaster is gone with the service
    expect(() => process.kill(Number(postmaster![1]), 0)).toThrow();
  }, 180_000);

  it('with NODE_COMPILE_CACHE, writes the cache once the modules are loaded, not only at exit', async () => {
    const compileCache = join(dataDir, 'compile-cache');
    mkdirSync(compileCache);
    const server = await start(dataDir, { NODE_COMPILE_CACHE: compileCache });
    try {
      expect((await fetch(`http://127.0.0.1:${server.port}/health/ready`)).status).toBe(200);
      // written by the flush after the load, which also frees Node's in-memory copies
      const cached = readdirSync(compileCache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(cached.length).toBeGreaterThan(1000);
    } finally {
      server.child.kill('SIGTERM');
    }
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
  }, 180_000);

  it('ends the start with status 1 when DATA_DIR cannot hold a cluster', async () => {
    const notADirectory = join(dataDir, 'a-file');
    writeFileSync(notADirectory, 'not a directory\n');
    await expect(start(notADirectory)).rejects.toThrow(
      /exited before listening \(\{"code":1,"signal":null\}\)[\s\S]*^\{"level":60,.*"msg":"start failed: .*(ENOTDIR|EEXIST)/m,
    );
  }, 60_000);
});
