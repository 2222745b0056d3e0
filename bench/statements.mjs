// Shows the SQL each hot request sends, for the service and for the minimal baseline side by side:
// how many round trips each takes, and whether each statement runs as a named prepared statement
// (PostgreSQL logs `execute <name>`; `execute <unnamed>` is parsed and planned on every request).
// `node bench/statements.mjs [path/to/dist/src/main.js]`
// (after `npm run build`). Uses the bench's embedded cluster (bench/.data/main) with
// log_statement = all on a throw-away database.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort, killAll, startNode, stop, waitFor } from './lib/proc.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const DATA = path.join(BENCH_DIR, '.data');
const MAIN = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist/src/main.js'));
const REQUESTS = 10;

const { startEmbeddedPostgres } = await import(pathToFileURL(path.join(path.dirname(MAIN), 'database/embedded/embedded-postgres.js')).href);
const lines = [];
const cluster = await startEmbeddedPostgres({ dataDir: path.join(DATA, 'main'), log: (l) => lines.push(l) });
const admin = new pg.Client(cluster.url);
await admin.connect();
const name = `medios_statements_${Date.now()}`;
await admin.query(`CREATE DATABASE ${name}`);
await admin.query(`ALTER DATABASE ${name} SET log_statement = 'all'`);
const dbUrl = new URL(cluster.url);
dbUrl.pathname = `/${name}`;
const password = `Bench-${randomBytes(9).toString('base64url')}`;

let service;
let baseline;
try {
  const port = await freePort();
  service = startNode(MAIN, {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      PORT: String(port),
      ADMIN_PASSWORD: password,
      JOBS_ENABLED: 'false',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      DATA_DIR: path.join(DATA, 'service'),
    },
    cwd: ROOT,
    logFile: path.join(DATA, 'statements-service.log'),
  });
  const serviceUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${serviceUrl}/health/ready`, { child: service, timeoutMs: 180_000 });
  const bport = await freePort();
  baseline = startNode(path.join(BENCH_DIR, 'baseline/server.mjs'), {
    env: { ...process.env, DATABASE_URL: dbUrl.toString(), PORT: String(bport), JWKS_URL: `${serviceUrl}/.well-known/jwks.json` },
    cwd: ROOT,
    logFile: path.join(DATA, 'statements-baseline.log'),
  });
  const baselineUrl = `http://127.0.0.1:${bport}`;
  await waitFor(`${baselineUrl}/health`, { child: baseline });

  const call = async (url, method, body, token) => {
    const res = await globalThis.fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const { body: session } = await call(`${serviceUrl}/api/v1/auth/login`, 'POST', { username: 'admin', password });
  const { body: medio } = await call(`${serviceUrl}/api/v1/admin/medios`, 'POST', { codigo: 'STATEMENTS', nombre: 'x' }, session.accessToken);

  for (const [label, base] of [
    ['service', serviceUrl],
    ['baseline', baselineUrl],
  ]) {
    for (const method of ['GET', 'POST']) {
      await sleep(300);
      lines.length = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const url = method === 'GET' ? `${base}/api/v1/admin/medios/${medio.id}` : `${base}/api/v1/admin/medios`;
        const body = method === 'POST' ? { codigo: `${label[0]}${i}_${Date.now() % 1e6}`.toUpperCase(), nombre: 'Medio' } : undefined;
        const res = await call(url, method, body, session.accessToken);
        if (res.status >= 300) throw new Error(`${label} ${method}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      await sleep(300);
      const statements = lines.filter((l) => /LOG: {2}(statement|execute)/.test(l)).map((l) => l.replace(/^.*?LOG: {2}/, ''));
      console.log(`\n${label} ${method}: ${(statements.length / REQUESTS).toFixed(1)} statements per request; the last request's:`);
      const per = Math.round(statements.length / REQUESTS);
      for (const s of statements.slice(-per)) console.log(`  ${s}`);
    }
  }
} finally {
  await stop(service);
  await stop(baseline);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await cluster.stop();
  killAll();
}
