// `npm run bench:request-log`: the CPU cost of the one `info` line per request (BENCHMARKS.md,
// "Request log line").
//
// Two instances of the BUILT service on one fresh PostgreSQL database (DATABASE_URL, a server;
// the database is created for the run and dropped after it): LOG_LEVEL=info (the line is written,
// to a file through a pipe as in a container) and LOG_LEVEL=warn (no line). Each round drives the
// guarded read GET /api/v1/admin/medios/{id} at a fixed rate with autocannon, in turn on each
// instance, and reads the instance's CPU seconds from /proc before and after: CPU per request
// on vs off, median of the rounds.
//
// Flags: --rounds N (default 5), --seconds N (default 6), --rate N req/s (default 400)
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cpuSeconds, freePort, killAll, runLoad, startNode, stop, waitFor } from './lib/proc.mjs';
import { median } from './lib/stats.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const DATA = path.join(BENCH_DIR, '.data');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const LOAD = path.join(BENCH_DIR, 'load.mjs');

const { values: flags } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '6' }, rate: { type: 'string', default: '400' } },
});
const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const rate = Number(flags.rate);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl?.startsWith('postgres')) {
  console.error('DATABASE_URL must name a PostgreSQL server (postgres://…): the run makes its own database there');
  process.exit(64);
}
mkdirSync(DATA, { recursive: true });
const adminPassword = `Bench-${randomBytes(8).toString('hex')}`;
const dbName = `bench_request_log_${randomBytes(4).toString('hex')}`;
const dbUrl = Object.assign(new URL(serverUrl), { pathname: `/${dbName}` }).toString();
const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
const targets = [];

async function start(name, logLevel, migrate) {
  const port = await freePort();
  const child = startNode(MAIN, {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: dbUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      DATA_DIR: path.join(DATA, 'request-log'),
      ADMIN_PASSWORD: adminPassword,
      JOBS_ENABLED: 'false',
      MIGRATIONS_RUN: String(migrate),
      BCRYPT_ROUNDS: '4',
      LOG_LEVEL: logLevel,
    },
    cwd: ROOT,
    logFile: path.join(DATA, `request-log-${name}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health/live`, { child });
  return { name, child, url };
}

try {
  await admin.query(`CREATE DATABASE ${dbName}`);
  targets.push(await start('on', 'info', true));
  targets.push(await start('off', 'warn', false));
  const login = await globalThis.fetch(`${targets[0].url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: adminPassword }),
  });
  const { accessToken } = await login.json();
  const headers = { authorization: `Bearer ${accessToken}` };
  const created = await globalThis.fetch(`${targets[0].url}/api/v1/admin/medios`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ codigo: 'BENCH_LOG', nombre: 'Medio del bench' }),
  });
  const readPath = `/api/v1/admin/medios/${(await created.json()).id}`;

  for (const t of targets) await runLoad(LOAD, { url: t.url + readPath, headers, connections: 10, duration: 3, overallRate: rate }); // warm-up
  const perRequest = { on: [], off: [] };
  for (let r = 0; r < rounds; r++) {
    for (const t of r % 2 ? [...targets].reverse() : targets) {
      const before = cpuSeconds(t.child.pid);
      const result = await runLoad(LOAD, { url: t.url + readPath, headers, connections: 10, duration: seconds, overallRate: rate });
      const cpu = cpuSeconds(t.child.pid) - before;
      perRequest[t.name].push((cpu / result.ok) * 1e6);
      console.log(
        `round ${r + 1} ${t.name.padEnd(3)}: ${result.ok} requests, ${cpu.toFixed(2)} CPU s, ${((cpu / result.ok) * 1e6).toFixed(1)} µs/request`,
      );
    }
  }
  const on = median(perRequest.on);
  const off = median(perRequest.off);
  console.log(
    `\nGuarded read at ${rate} req/s, ${rounds} rounds of ${seconds} s: CPU per request, median — line on ${on.toFixed(1)} µs, off ${off.toFixed(1)} µs, ` +
      `difference ${(on - off).toFixed(1)} µs (${(((on - off) / off) * 100).toFixed(1)} %)`,
  );
} finally {
  for (const t of targets) await stop(t.child);
  killAll();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
  await admin.end();
}
