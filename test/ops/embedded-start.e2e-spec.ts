import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD } from '../support/test-env.js';
import { ensureBuilt } from '../reliability/support/built-server.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start` on a fresh machine: the built server with no DATABASE_URL starts its own embedded
 * PostgreSQL under DATA_DIR — booting it while the server loads its modules — becomes ready,
 * and stops it again on SIGTERM. A DATA_DIR it cannot use ends the start at once, with nothing
 * left running.
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

  function start(dir: string): Started {
    const child = spawn(process.execPath, [main], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        DATA_DIR: dir,
        ADMIN_PASSWORD,
        BCRYPT_ROUNDS: '4',
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
        JOBS_ENABLED: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('exit', (code, signal) => done({ code, signal })),
    );
    return { child, output: () => output, exited };
  }

  async function listeningPort(server: Started): Promise<number> {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      for (const line of server.output().split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg?.startsWith('listening on') && entry.port) return entry.port;
      }
      if (server.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the server did not listen:\n${server.output().slice(-3000)}`);
  }

  function messages(output: string): string[] {
    return output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  }

  it('starts PostgreSQL, answers ready, and stops both on SIGTERM', async () => {
    const server = start(dataDir);
    try {
      const port = await listeningPort(server);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
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

  it('ends the start with status 1 when DATA_DIR cannot hold a cluster', async () => {
    const notADirectory = join(dataDir, 'a-file');
    writeFileSync(notADirectory, 'not a directory\n');
    const server = start(notADirectory);
    const exit = await server.exited;
    expect(exit).toEqual({ code: 1, signal: null });
    expect(server.output()).toMatch(/^fatal: .*(ENOTDIR|EEXIST)/m);
    expect(server.output()).not.toMatch(/listening on/);
  }, 60_000);
});
