import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../../src/common/config/index.js';
import { connectionSettings } from '../../../src/database/database-runtime.js';
import { engineOf, withDatabase } from '../../../src/database/database-url.js';
import { dialectFor } from '../../../src/database/dialects/index.js';
import { ADMIN_PASSWORD } from '../../support/test-env.js';
import { ROOT } from './figures.js';

/** Where the servers' complete output is kept (LOG_LEVEL=debug), for the secret scan and for reading. */
export const LOG_DIR = join(ROOT, 'test-results', 'reliability-logs');

/**
 * The compiled server, `dist/src/main.js`. CI builds it before the tests (.ci/run); when it is
 * missing or older than a source file, it is built here (`tsc -p tsconfig.build.json`), once for
 * all suites (a lock directory keeps two workers from building at the same time).
 */
export function ensureBuilt(): string {
  const main = join(ROOT, 'dist', 'src', 'main.js');
  const lock = join(ROOT, 'dist', '.reliability-build.lock');
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`another build holds ${lock} for 3 minutes: remove it if no test runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (!existsSync(main) || newestSource() > statSync(main).mtimeMs) {
      const started = Date.now();
      const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      // tsc emits even when a file elsewhere does not type-check; only a missing entry point is fatal
      if (!existsSync(main) || statSync(main).mtimeMs < started - 2000)
        throw new Error(`the build produced no fresh dist/src/main.js:\n${tsc.stdout}${tsc.stderr}`);
    }
  } finally {
    rmdirSync(lock);
  }
  return main;
}

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(ROOT, 'src'));
  walk(join(ROOT, 'migrations'));
  return newest;
}

export interface RunningServer {
  child: ChildProcess;
  port: number;
  /** everything the process wrote so far (stdout and stderr) */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, and wait for the exit */
  kill(): Promise<void>;
}

/**
 * Starts `node dist/src/main.js` as a production process on `databaseUrl`, LOG_LEVEL=debug, its
 * output appended to test-results/reliability-logs/<logName>.log; resolves once it listens.
 */
export async function startServer(main: string, databaseUrl: string, logName: string, env: Record<string, string> = {}): Promise<RunningServer> {
  mkdirSync(LOG_DIR, { recursive: true });
  const logFile = join(LOG_DIR, `${logName}.log`);
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
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
      LOG_LEVEL: 'debug',
      DB_POOL_SIZE: '10',
      JOBS_ENABLED: 'false',
      // several built servers run at once (one per test file): none takes the fixed default metrics
      // port, where the second would fail to start with EADDRINUSE
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const capture = (chunk: Buffer) => {
    output += chunk.toString();
    appendFileSync(logFile, chunk);
  };
  child.stdout!.on('data', capture);
  child.stderr!.on('data', capture);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const port = await new Promise<number>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the server did not listen within 60 s:\n${output.slice(-3000)}`));
    }, 60_000);
    const onData = () => {
      for (const line of output.split('\n')) {
        const p = portOf(line);
        if (p) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          done(p);
          return;
        }
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((exit) => {
      clearTimeout(timer);
      fail(new Error(`the server exited before listening (${JSON.stringify(exit)}):\n${output.slice(-3000)}`));
    });
  });
  return {
    child,
    port,
    output: () => output,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function portOf(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    return typeof entry.msg === 'string' && entry.msg.startsWith('listening on') ? entry.port : undefined;
  } catch {
    return undefined;
  }
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
  ms: number;
  /** the network error, when there was no answer */
  error?: string;
}

/** One HTTP request to the server, bounded by `timeoutMs` (status 0 when it failed or timed out). */
export async function call(
  port: number,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    return { status: 0, body: undefined, headers: new Headers(), ms: performance.now() - started, error: e.cause?.code ?? e.name ?? e.message };
  }
}

/** A database of its own on the test server, cloned from the migrated template; dropped by the returned function. */
export async function scratchDatabase(label: string): Promise<{ url: string; owner: DataSource; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_SERVER_URL as string;
  const dialect = dialectFor(engineOf(serverUrl));
  const config = loadAppConfig(process.env);
  const name = `${process.env.TEST_RUN_ID}_${label}_${randomBytes(3).toString('hex')}`;
  const admin = await new DataSource(dialect.dataSourceOptions(connectionSettings(config, serverUrl, 'medios-reliability-admin'))).initialize();
  try {
    await dialect.createDatabase(admin, name, process.env.TEST_TEMPLATE_DB);
  } finally {
    await admin.destroy();
  }
  const url = withDatabase(serverUrl, name);
  const owner = await new DataSource(dialect.dataSourceOptions(connectionSettings(config, url, 'medios-reliability-owner'))).initialize();
  return {
    url,
    owner,
    drop: async () => {
      await owner.destroy();
      const a = await new DataSource(dialect.dataSourceOptions(connectionSettings(config, serverUrl, 'medios-reliability-admin'))).initialize();
      try {
        await dialect.dropDatabase(a, name);
      } finally {
        await a.destroy();
      }
    },
  };
}

/** Signs the bootstrap admin in on a running server. */
export async function adminLogin(port: number): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await call(port, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  if (res.status !== 200) throw new Error(`admin login: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Occurrences of each secret value in a text (empty when none). */
export function leakedSecrets(text: string, secrets: ReadonlyArray<readonly [string, string]>): string[] {
  return secrets.filter(([, value]) => value && value.length >= 8 && text.includes(value)).map(([what]) => what);
}
