import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource, type QueryRunner } from 'typeorm';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings } from '../../src/database/database-runtime.js';
import { engineOf, withDatabase } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/test-env.js';

/**
 * The real process (`node dist/src/main.js`, compiled here from the current sources) on its own
 * database, stopped with SIGTERM while a request is in flight.
 *
 * The request is held in flight deterministically, without a test-only route or a sleep: the test
 * locks the admin's `users` row in an open transaction, so the login's UPDATE of `ultimo_login`
 * waits on that lock inside the server until the test commits.
 *
 * The server is compiled with tsc rather than run with tsx: esbuild (tsx) emits no decorator
 * metadata, which Nest's dependency injection needs.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP_NAME = 'medios-admin-api'; // the pool's application_name / program_name (connectionSettings' default)

interface Server {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface HttpAnswer {
  status: number;
  body: any;
}

describe('graceful shutdown', () => {
  let buildDir: string;
  let databaseUrl: string;
  let databaseName: string;
  const engine = engineOf(process.env.TEST_SERVER_URL ?? 'postgres://');
  const dialect = dialectFor(engine);
  const sql = (text: string) => (engine === 'mssql' ? text.replace(/\$(\d+)/g, (_m, n: string) => `@${Number(n) - 1}`) : text);

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), 'medios-shutdown-'));
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', buildDir],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    // tsc emits even when some file does not type-check; only a missing entry point is fatal here
    if (!existsSync(join(buildDir, 'src/main.js'))) throw new Error(`tsc produced no src/main.js:\n${tsc.stdout}${tsc.stderr}`);
    writeFileSync(join(buildDir, 'package.json'), JSON.stringify({ type: 'module' }));
    symlinkSync(join(ROOT, 'node_modules'), join(buildDir, 'node_modules'), 'dir');

    const serverUrl = process.env.TEST_SERVER_URL as string;
    databaseName = `${process.env.TEST_RUN_ID}_shutdown_${randomBytes(3).toString('hex')}`;
    const admin = await adminDataSource();
    try {
      // PostgreSQL clones the migrated template; on SQL Server the server applies the migrations at start
      await dialect.createDatabase(admin, databaseName, process.env.TEST_TEMPLATE_DB);
    } finally {
      await admin.destroy();
    }
    databaseUrl = withDatabase(serverUrl, databaseName);
  }, 180_000);

  afterAll(async () => {
    if (databaseName) {
      const admin = await adminDataSource();
      try {
        await dialect.dropDatabase(admin, databaseName);
      } finally {
        await admin.destroy();
      }
    }
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  it('finishes the request in flight when SIGTERM arrives, refuses new connections meanwhile, and exits 0', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '20000' });
    let lock: Awaited<ReturnType<typeof lockAdminRow>> | undefined;
    try {
      lock = await lockAdminRow();
      let settled = false;
      const login = post(server.port, '/api/v1/auth/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD }).finally(() => {
        settled = true;
      });
      await lock.waitUntilServerBlocks();

      server.child.kill('SIGTERM');
      expect(await waitForRefusedConnection(server.port)).toBe('ECONNREFUSED');
      expect(settled).toBe(false); // the listener closed while the request was still running

      await lock.release();
      const answer = await login;
      expect(answer.status).toBe(200);
      expect(typeof answer.body.accessToken).toBe('string');

      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(await connectOutcome(server.port)).toBe('ECONNREFUSED');
      expect(server.output()).toContain('SIGTERM received');
      expect(server.output()).toContain('shutdown complete (SIGTERM)');
    } finally {
      await lock?.release();
      server.child.kill('SIGKILL');
    }
  });

  it('ends with the last answer when its connection is kept alive, not after SHUTDOWN_TIMEOUT_MS', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '20000' });
    const agent = new Agent({ keepAlive: true });
    let lock: Awaited<ReturnType<typeof lockAdminRow>> | undefined;
    try {
      lock = await lockAdminRow();
      const login = post(server.port, '/api/v1/auth/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD }, agent);
      await lock.waitUntilServerBlocks();
      server.child.kill('SIGTERM');
      await waitForRefusedConnection(server.port);
      await lock.release();
      expect((await login).status).toBe(200);
      const answeredAt = Date.now();
      expect(await server.exited).toEqual({ code: 0, signal: null });
      // the answer's idle keep-alive connection no longer holds the drain for the 20 s
      expect(Date.now() - answeredAt).toBeLessThan(5000);
      expect(server.output()).not.toContain('requests still running');
    } finally {
      agent.destroy();
      await lock?.release();
      server.child.kill('SIGKILL');
    }
  });

  it('stops as on SIGTERM when npm, which started it through sh, is stopped (npm passes the signal to sh only)', async () => {
    const server = await startServer({ npm_lifecycle_event: 'start' }, true);
    try {
      server.child.kill('SIGTERM');
      await waitFor(async () => server.output().includes('shutdown complete (SIGTERM)'), 'the orphaned server to stop');
      expect(server.output()).toContain('npm, which started this process, has ended: stopping as on SIGTERM');
      expect(await connectOutcome(server.port)).toBe('ECONNREFUSED');
    } finally {
      server.child.kill('SIGKILL');
      // on a failure the server outlives its stand-in: stop it by the pid of its log lines
      const pid = /"pid":(\d+)/.exec(server.output())?.[1];
      if (pid) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('bounds the wait: a request still running after SHUTDOWN_TIMEOUT_MS is cut and the process exits', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUT_MS: '300' });
    let lock: Awaited<ReturnType<typeof lockAdminRow>> | undefined;
    try {
      lock = await lockAdminRow();
      const login = post(server.port, '/api/v1/auth/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD }).then(
        (answer) => `answered ${answer.status}`,
        (err: NodeJS.ErrnoException) => err.code ?? err.message,
      );
      await lock.waitUntilServerBlocks();
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');

      // the request never finishes (the lock is held): its connection is cut, the process still ends
      expect(await login).toBe('ECONNRESET');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      // SHUTDOWN_TIMEOUT_MS, then the pool and the rest of the sequence (the hard exit comes 5 s later)
      expect(Date.now() - signalledAt).toBeLessThan(300 + 5000);
      expect(server.output()).toContain('requests still running after 300 ms (SHUTDOWN_TIMEOUT_MS): closing their connections');
    } finally {
      await lock?.release();
      server.child.kill('SIGKILL');
    }
  });

  function adminDataSource(): Promise<DataSource> {
    const config = loadAppConfig(process.env);
    const ds = new DataSource(dialect.dataSourceOptions(connectionSettings(config, process.env.TEST_SERVER_URL as string, 'medios-test-admin')));
    return ds.initialize();
  }

  async function startServer(env: Record<string, string>, underParent = false): Promise<Server> {
    // underParent: a stand-in for npm, which runs the script through `sh -c` and passes a SIGTERM
    // on to that shell only
    const standIn = [
      "const shell = require('node:child_process').spawn('sh', ['-c', `'${process.execPath}' '${process.argv[1]}'`], { stdio: 'inherit' });",
      "process.on('SIGTERM', () => { shell.kill('SIGTERM'); process.exit(0); });",
      'setInterval(() => {}, 1e6);',
    ].join(' ');
    const args = underParent ? ['-e', standIn, join(buildDir, 'src/main.js')] : [join(buildDir, 'src/main.js')];
    const child = spawn(process.execPath, args, {
      cwd: buildDir,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        JWT_PRIVATE_KEY: process.env.JWT_PRIVATE_KEY,
        JWT_PUBLIC_KEY: process.env.JWT_PUBLIC_KEY,
        AUDIT_SIGNING_KEY: process.env.AUDIT_SIGNING_KEY,
        ADMIN_PASSWORD,
        BCRYPT_ROUNDS: '4',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        DB_POOL_SIZE: '3',
        // not the fixed default metrics port, which another test's server may hold
        METRICS_PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.once('exit', (code, signal) => done({ code, signal })),
    );
    const port = await new Promise<number>((done, fail) => {
      const notListening = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`the server did not listen within 40 s:\n${output}`));
      }, 40_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        for (const line of output.split('\n')) {
          const port = portOf(line);
          if (port) {
            clearTimeout(notListening);
            done(port);
            return;
          }
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      void exited.then((exit) => {
        clearTimeout(notListening);
        fail(new Error(`the server exited before listening (${JSON.stringify(exit)}):\n${output}`));
      });
    });
    return { child, port, output: () => output, exited };
  }

  /** The admin's users row, locked by the test in an open transaction (FOR UPDATE / XLOCK). */
  async function lockAdminRow() {
    const ds = await new DataSource(
      dialect.dataSourceOptions(connectionSettings(loadAppConfig(process.env), databaseUrl, 'medios-test-lock')),
    ).initialize();
    const runner: QueryRunner = ds.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const lockSql =
      engine === 'mssql' ? 'SELECT id FROM users WITH (XLOCK, ROWLOCK) WHERE username = $1' : 'SELECT id FROM users WHERE username = $1 FOR UPDATE';
    const rows: unknown[] = await runner.query(sql(lockSql), [ADMIN_USERNAME]);
    if (rows.length !== 1) throw new Error('the bootstrap admin is missing');
    let released = false;
    return {
      /** until a session of the server waits on the lock (the login's UPDATE) */
      async waitUntilServerBlocks(): Promise<void> {
        const probe =
          engine === 'mssql'
            ? `SELECT COUNT(*) AS n FROM sys.dm_exec_requests r JOIN sys.dm_exec_sessions s ON s.session_id = r.session_id
               WHERE s.program_name = $1 AND r.blocking_session_id <> 0`
            : `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`;
        await waitFor(async () => Number((await ds.query(sql(probe), [APP_NAME]))[0].n) > 0, 'the login to wait on the locked row');
      },
      async release(): Promise<void> {
        if (released) return;
        released = true;
        await runner.commitTransaction();
        await runner.release();
        await ds.destroy();
      },
    };
  }
});

function portOf(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    return typeof entry.msg === 'string' && entry.msg.startsWith('listening on') ? entry.port : undefined;
  } catch {
    return undefined;
  }
}

function post(port: number, path: string, body: unknown, agent: Agent | false = false): Promise<HttpAnswer> {
  return new Promise((done, fail) => {
    const payload = JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

/** 'connected' or the error code of a TCP connect to the port. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      done('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/**
 * Connects until the port refuses (the listener closed); gives up after 10 s. A connection the
 * kernel queued just before the listener closed is reset rather than refused: that is the close
 * in progress, so the poll goes on until a connect is refused outright.
 */
async function waitForRefusedConnection(port: number): Promise<string> {
  let outcome = 'connected';
  await waitFor(async () => !['connected', 'ECONNRESET'].includes((outcome = await connectOutcome(port))), 'the listener to close');
  return outcome;
}

/** Polls a condition every 20 ms until it holds; fails after 10 s. */
async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
