// `npm run bench`: the performance benchmark (see BENCHMARKS.md).
//
// Drives the BUILT service (dist/src/main.js; the npm script builds it first) and the hand-written
// baseline (bench/baseline/server.mjs) against one PostgreSQL — embedded under bench/.data, or the
// server of DATABASE_URL — in a fresh database created for the run and dropped after it. Load comes
// from autocannon in separate processes (bench/load.mjs). Prints the table and writes it to
// BENCHMARKS.md (between the generated-results markers; the rest of the file is kept).
//
// Flags:
//   --quick            short run (3 s rounds, 100 thousand audit rows); printed, and written to
//                      bench/.data/quick-results.md unless --write
//   --rows N           audit rows of the "large" audit scenario (default 1000000; 10000000 works)
//   --rounds N         A/B rounds per hot scenario (default 3, minimum 3)
//   --seconds N        seconds per round (default 8)
//   --warmup N         seconds of load on each side before its first round (default 12; --quick 2)
//   --only a,b         run only some scenarios: startup, read, storm, audit, mutation, tree, seal
//   --seal-events N    sealed events the seal scenario verifies (default 1000000; --quick 100000)
//   --profile          start service, baseline and floor with --cpu-prof (profiles in bench/.data/profiles)
//   --service FILE     the service entry point to drive instead of dist/src/main.js (what-if
//                      experiments on a patched copy of dist/)
//   --keep-db          keep the bench database (for EXPLAIN ANALYZE afterwards)
//   --node-flags="…"  the service's Node flags instead of those of `npm start` (what-if
//                      experiments on heap sizing; "" for none)
//   --wait-quiet MIN   first wait up to MIN minutes for the 1-minute load average to drop below 1
//   --write / --no-write   force writing BENCHMARKS.md or not
//   --help             this text
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cpuAccount, cpuSeconds, freePort, killAll, rssMb, rssPartsMb, runLoad, startNode, stop, waitFor } from './lib/proc.mjs';
import { renderReport, writeReport } from './lib/report.mjs';
import { seedAudit, seedLoginUsers } from './lib/seed.mjs';
import { seedRubroTree } from './lib/rubros.mjs';
import { sealTools } from './lib/seal.mjs';
import { median, summarize } from './lib/stats.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const DATA = path.join(BENCH_DIR, '.data');
const LOAD = path.join(BENCH_DIR, 'load.mjs');
let MAIN = path.join(ROOT, 'dist/src/main.js');
const BASELINE = path.join(BENCH_DIR, 'baseline/server.mjs');
// the floor of the stack (bench/floor/server.ts, built by `npm run bench` into bench/.data/floor)
const FLOOR = path.join(DATA, 'floor/server.js');

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rows: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    service: { type: 'string' },
    'keep-db': { type: 'boolean', default: false },
    'node-flags': { type: 'string' },
    'wait-quiet': { type: 'string' },
    'seal-events': { type: 'string' },
    write: { type: 'boolean' },
    'no-write': { type: 'boolean' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (flags.help) {
  // the usage is this file's header comment
  const header = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    .split('\n')
    .filter((line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('//')));
  process.stdout.write(header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n') + '\n');
  process.exit(0);
}

if (flags.service) MAIN = path.resolve(flags.service);
const quick = flags.quick;
const cfg = {
  rounds: Math.max(3, Number(flags.rounds ?? 3)),
  seconds: Number(flags.seconds ?? (quick ? 3 : 8)),
  // the service's CPU per answer keeps falling for ~20 s of load after its start (JIT tiers, heap
  // sizing), the small baseline's and floor's for far less: each side warms up this long first
  warmup: Number(flags.warmup ?? (quick ? 2 : 12)),
  auditSeconds: quick ? 2 : 3,
  smallRows: 10_000,
  largeRows: Number(flags.rows ?? (quick ? 100_000 : 1_000_000)),
  sealEvents: Number(flags['seal-events'] ?? (quick ? 100_000 : 1_000_000)),
  deepPages: 200,
  stormRounds: quick ? 1 : 3,
  stormReadRate: 100,
  stormReadConnections: 1,
  stormClients: 20,
  startupRuns: quick ? 2 : 3,
  treeNodes: 10_000,
  treeDepth: 10,
  bcryptRounds: Number(process.env.BCRYPT_ROUNDS ?? 12),
};
const only = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : undefined;
const want = (name) => !only || only.has(name);
const writeTo = flags['no-write'] ? undefined : flags.write || !quick ? path.join(ROOT, 'BENCHMARKS.md') : path.join(DATA, 'quick-results.md');

const log = (msg) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const fmt = (n, digits = 1) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';
const nodeArgs = (name) =>
  flags.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.join(DATA, 'profiles')}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`] : [];

/**
 * The service runs as it ships: with the Node flags of `npm start` (package.json), which the
 * Dockerfile's CMD repeats (test/ops/start-command.e2e-spec.ts keeps the two equal).
 */
function startCommandFlags() {
  const start = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`package.json: the start script does not run node: ${start}`);
  return words.slice(1).filter((w) => w.startsWith('--'));
}
const SERVICE_FLAGS = flags['node-flags'] === undefined ? startCommandFlags() : flags['node-flags'].split(/\s+/).filter(Boolean);

const rows = []; // the summary table: {scenario, measure, value, target, met}
const details = []; // markdown lines with the raw figures behind the summary
const check = (scenario, measure, value, target, met, note) => rows.push({ scenario, measure, value, target, met, note });
const rssTrail = []; // RSS of the service after each phase
/** The service's RSS after a phase, and what it is made of: V8's heap as the service's own metrics report it, the rest of the anonymous memory, the mapped files. */
async function noteRss(phase) {
  if (!service) return;
  const rss = rssMb(service.child.pid);
  const { anon, file } = rssPartsMb(service.child.pid);
  const heap = await v8HeapMb(service.metricsPort);
  const parts = heap
    ? `V8 heap ${fmt(heap.total, 0)} (new space ${fmt(heap.newSpace, 0)}), other anonymous ${fmt(anon - heap.total, 0)}, files ${fmt(file, 0)}`
    : `anonymous ${fmt(anon, 0)}, files ${fmt(file, 0)}`;
  rssTrail.push(`${phase} ${fmt(rss, 0)} MB (${parts})`);
}

/** V8's committed heap in MB, from prom-client's default metrics on the service's metrics port; undefined if it does not answer. */
async function v8HeapMb(metricsPort) {
  try {
    const text = await (await globalThis.fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: globalThis.AbortSignal.timeout(5000) })).text();
    const value = (re) => Number(text.match(re)?.[1]) / 2 ** 20;
    const total = value(/^nodejs_heap_size_total_bytes(?:\{[^}]*\})? (\S+)/m);
    const newSpace = value(/^nodejs_heap_space_size_total_bytes\{[^}]*space="new"[^}]*\} (\S+)/m);
    return Number.isFinite(total) ? { total, newSpace } : undefined;
  } catch {
    return undefined;
  }
}

mkdirSync(DATA, { recursive: true });
for (const file of ['service.log', 'baseline.log', 'startup.log']) writeFileSync(path.join(DATA, file), ''); // this run's output only
if (flags['wait-quiet']) {
  const deadline = Date.now() + Number(flags['wait-quiet']) * 60_000;
  while (os.loadavg()[0] >= 1 && Date.now() < deadline) {
    log(`waiting for a quiet machine: load average ${os.loadavg()[0].toFixed(2)}`);
    await sleep(15_000);
  }
}
if (os.loadavg()[0] >= 1) log(`note: load average ${os.loadavg()[0].toFixed(2)} ≥ 1, other processes will disturb the figures`);
const startedAt = new Date();
const t0 = performance.now();
const loadBefore = os.loadavg();
const cpuBefore = cpuAccount();
const adminPassword = `Bench-${randomBytes(12).toString('base64url')}`;

let pgHandle; // embedded cluster of the run
let adminPool; // superuser connection to the server (create/drop the database)
let db; // connection to the bench database
let dbName;
let serverUrl; // the PostgreSQL server of the run (embedded or DATABASE_URL)
let smallDbName; // the audit scenario's 10-thousand-row database
let smallService; // the service instance on it
let service;
let baseline;
let floor;
const facts = {};

let cleaning;
/** Stops the children, drops the database and stops the cluster; once. */
function cleanup() {
  cleaning ??= (async () => {
    await stop(service?.child);
    await stop(smallService?.child);
    await stop(baseline?.child);
    await stop(floor?.child);
    killAll(); // load generators still running after an interruption
    await db?.end().catch(() => {});
    if (dbName && flags['keep-db']) log(`kept database ${dbName}`);
    else if (dbName) await adminPool?.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((e) => log(`drop database: ${e.message}`));
    if (smallDbName && flags['keep-db']) log(`kept database ${smallDbName}`);
    else if (smallDbName)
      await adminPool?.query(`DROP DATABASE IF EXISTS ${smallDbName} WITH (FORCE)`).catch((e) => log(`drop database: ${e.message}`));
    await adminPool?.end().catch(() => {});
    await pgHandle?.stop();
  })();
  return cleaning;
}
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(code));
  });
}

try {
  facts.machine = machineFacts();
  log(
    `machine: ${facts.machine.cpus}, ${facts.machine.memory}, Node ${process.version}; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
  );
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run bench\` (it builds first) or \`npm run build\``);

  if (want('startup')) await scenarioStartup();

  // ------------------------------------------------------------------ database, service, baseline
  serverUrl = await startDatabaseServer();
  adminPool = new pg.Pool({ connectionString: serverUrl, max: 1 });
  adminPool.on('error', () => {}); // connections cut by the server's shutdown at the end
  if (pgHandle) {
    // the embedded cluster belongs to the bench alone: drop what a --keep-db or killed run left
    const stale = await adminPool.query(`SELECT datname FROM pg_database WHERE datname LIKE 'medios\\_bench\\_%'`);
    for (const { datname } of stale.rows) await adminPool.query(`DROP DATABASE ${datname} WITH (FORCE)`);
  }
  dbName = `medios_bench_${Date.now()}`;
  await adminPool.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = withDatabase(serverUrl, dbName);
  facts.postgres = (await adminPool.query('SHOW server_version')).rows[0].server_version;
  log(`database ${dbName} on PostgreSQL ${facts.postgres}`);

  service = await startService(dbUrl);
  baseline = await startBaseline(dbUrl, service.port);
  await noteRss('ready');
  db = new pg.Pool({ connectionString: dbUrl, max: 2 });
  db.on('error', () => {});

  // ------------------------------------------------------------------ seed
  const admin = { username: 'admin', password: adminPassword };
  let token = await login(service.url, admin);
  const medio = await post(service.url, '/api/v1/admin/medios', token, { codigo: 'BENCH_MEDIO', nombre: 'Medio del benchmark' });
  facts.medios = medio.status === 201;
  const readPath = facts.medios ? `/api/v1/admin/medios/${medio.body.id}` : '/api/v1/auth/me';
  if (!facts.medios) log(`POST /api/v1/admin/medios answered ${medio.status}: guarded read falls back to GET /api/v1/auth/me, no mutation scenario`);
  const users = await seedLoginUsers(db, {
    count: cfg.stormClients,
    password: `Storm-${randomBytes(9).toString('base64url')}`,
    rounds: cfg.bcryptRounds,
  });
  facts.audit = (await get(service.url, '/api/v1/audit/events?limit=1', token)).status === 200;
  facts.tree = (await get(service.url, '/api/v1/admin/rubros/tree', token)).status === 200;

  // ------------------------------------------------------------------ scenarios
  if (want('read')) {
    token = await login(service.url, admin);
    if (facts.medios && existsSync(FLOOR)) floor = await startFloor(dbUrl, service.port);
    else log(`no floor run: ${existsSync(FLOOR) ? 'the read falls back to /api/v1/auth/me' : `${FLOOR} is missing (npm run bench builds it)`}`);
    const ab = await abRounds('read', (target) => ({ url: target.url + readPath, headers: auth(token), connections: 50 }), floor ? [floor] : []);
    await stop(floor?.child);
    const label = facts.medios
      ? 'Guarded read `GET /api/v1/admin/medios/{id}`, 50 connections'
      : 'Guarded read (fallback `GET /api/v1/auth/me`), 50 connections';
    const rpsRatio = ab.ratio((r) => r.rps);
    const p99Ratio = ab.ratio((r) => r.latency.p99);
    check(
      label,
      'throughput, service ÷ baseline',
      `${fmt(rpsRatio, 2)}× (${fmt(
        ab.median('service', (r) => r.rps),
        0,
      )} vs ${fmt(
        ab.median('baseline', (r) => r.rps),
        0,
      )} req/s)`,
      '≥ 0.75×',
      rpsRatio >= 0.75,
    );
    check(
      label,
      'p99 latency, service ÷ baseline',
      `${fmt(p99Ratio, 2)}× (${fmt(
        ab.median('service', (r) => r.latency.p99),
        1,
      )} vs ${fmt(
        ab.median('baseline', (r) => r.latency.p99),
        1,
      )} ms)`,
      '≤ 1.5×',
      p99Ratio <= 1.5,
    );
    cpuCheck(label, ab);
    if (floor) floorChecks(label, ab);
    details.push(ab.table(label));
    await noteRss('read');
  }

  if (want('storm')) {
    await scenarioLoginStorm(admin, users, readPath);
    await noteRss('storm');
  }

  if (want('audit')) {
    if (!facts.audit)
      check(
        'Audit page `GET /api/v1/audit/events?limit=50`',
        'p50 at large ÷ p50 at 10 thousand',
        'not run: the endpoint answers 404',
        '≤ 1.3×',
        undefined,
      );
    else await scenarioAudit(admin, users);
    await noteRss('audit');
  }

  // the audited create at 20 and at 50 connections
  for (const connections of want('mutation') ? [20, 50] : []) {
    const label = `Audited mutation \`POST /api/v1/admin/medios\`, ${connections} connections`;
    if (!facts.medios) check(label, 'throughput, service ÷ baseline', 'not run: the endpoint answers 404', '≥ 0.7×', undefined);
    else {
      token = await login(service.url, admin);
      const ab = await abRounds('mutation', (target, round) => ({
        url: `${target.url}/api/v1/admin/medios`,
        method: 'POST',
        headers: auth(token),
        connections,
        mutation: { prefix: `${target.name === 'service' ? 'S' : 'B'}${connections}_${round}_` },
      }));
      const rpsRatio = ab.ratio((r) => r.rps);
      check(
        label,
        'throughput, service ÷ baseline',
        `${fmt(rpsRatio, 2)}× (${fmt(
          ab.median('service', (r) => r.rps),
          0,
        )} vs ${fmt(
          ab.median('baseline', (r) => r.rps),
          0,
        )} req/s)`,
        '≥ 0.7×',
        rpsRatio >= 0.7,
      );
      check(
        label,
        'p99 latency, service ÷ baseline (no target)',
        `${fmt(
          ab.ratio((r) => r.latency.p99),
          2,
        )}× (${fmt(
          ab.median('service', (r) => r.latency.p99),
          1,
        )} vs ${fmt(
          ab.median('baseline', (r) => r.latency.p99),
          1,
        )} ms)`,
        '—',
        undefined,
      );
      cpuCheck(label, ab);
      details.push(ab.table(label));
    }
    await noteRss(`mutation ${connections}`);
  }

  if (want('tree')) {
    const label = `Rubro tree \`GET /api/v1/admin/rubros/tree\`, ${cfg.treeNodes.toLocaleString('en-US')} nodes, depth ${cfg.treeDepth}, 1 connection`;
    if (!facts.tree) check(label, 'p50 latency', 'not run: the endpoint answers 404', '≤ 50 ms', undefined);
    else {
      const seeded = await seedRubroTree(db, { nodes: cfg.treeNodes, depth: cfg.treeDepth });
      token = await login(service.url, admin);
      const res = await get(service.url, '/api/v1/admin/rubros/tree', token);
      const count = countTree(res.body);
      const tree = { url: `${service.url}/api/v1/admin/rubros/tree`, headers: auth(token), connections: 1 };
      await runLoad(LOAD, { ...tree, duration: cfg.warmup });
      const r = await runLoad(LOAD, { ...tree, duration: cfg.seconds });
      check(
        label,
        'p50 latency',
        `${fmt(r.latency.p50, 1)} ms (p99 ${fmt(r.latency.p99, 1)} ms, ${count.nodes} nodes / depth ${count.depth} answered, ${fmt(res.bytes / 1024, 0)} KiB)`,
        '≤ 50 ms',
        r.latency.p50 <= 50,
      );
      details.push(
        `**${label}**: seeded ${seeded.nodes} nodes (levels of ${seeded.sizes.join(', ')}) in ${fmt(seeded.ms, 0)} ms; ${r.ok} answers in ${cfg.seconds} s, ${statusLine(r)}.`,
      );
    }
    await noteRss('tree');
  }

  if (want('seal')) {
    if (!facts.medios) check('Audit seals', 'verification', 'not run: POST /api/v1/admin/medios answers 404', '—', undefined);
    else await scenarioSeal(admin, dbUrl);
    await noteRss('seal');
  }

  // ------------------------------------------------------------------ process
  await sleep(1000);
  const rss = rssMb(service.child.pid);
  await noteRss('end');
  check(
    'Process',
    'RSS of the service after the runs',
    `${fmt(rss, 0)} MB (baseline: ${fmt(rssMb(baseline.child.pid), 0)} MB)`,
    '≤ 200 MB',
    rss <= 200,
  );
  details.push(
    `**Service RSS after each phase** (MB; of it V8's committed heap as the service's metrics report it, the rest of its anonymous memory, and the pages of mapped files, mostly the Node executable's): ${rssTrail.join(' → ')}.`,
  );
} catch (err) {
  log(`FAILED: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}

const cpuAfter = cpuAccount();
const elapsedSeconds = (performance.now() - t0) / 1000;
const othersCpu = cpuAfter.machine - cpuBefore.machine - (cpuAfter.own - cpuBefore.own);
facts.othersCpu = { seconds: othersCpu, share: othersCpu / (elapsedSeconds * os.cpus().length) };
const report = renderReport({
  rows,
  details,
  facts,
  cfg,
  quick,
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  serviceCommand: `\`${['node', ...SERVICE_FLAGS, path.relative(ROOT, MAIN)].join(' ')}\` (${flags['node-flags'] === undefined ? 'the Node flags of `npm start`' : 'flags of --node-flags'})`,
  startedAt,
  minutes: (performance.now() - t0) / 60_000,
  loadBefore,
  loadAfter: os.loadavg(),
  failed: process.exitCode === 1,
});
process.stdout.write(`\n${report}\n`);
if (writeTo && process.exitCode !== 1) {
  writeReport(writeTo, report);
  log(`written to ${path.relative(ROOT, writeTo)}`);
}

// ====================================================================================== scenarios

/** Start to ready of a service that starts its own embedded PostgreSQL on an existing data directory. */
async function scenarioStartup() {
  const dataDir = path.join(DATA, 'startup');
  const port = await freePort();
  const env = serviceEnv({ DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(await freePort()) });
  delete env.DATABASE_URL;
  const ready = `http://127.0.0.1:${port}/health/ready`;
  // One unmeasured start: creates the cluster on the first run ever and applies pending migrations.
  log('startup: priming the embedded data directory');
  let child = startNode(MAIN, { nodeArgs: SERVICE_FLAGS, env, cwd: ROOT, logFile: path.join(DATA, 'startup.log') });
  await waitFor(ready, { child, timeoutMs: 180_000 });
  await stop(child);
  const times = [];
  for (let i = 0; i < cfg.startupRuns; i++) {
    const since = performance.now();
    child = startNode(MAIN, { nodeArgs: SERVICE_FLAGS, env, cwd: ROOT, logFile: path.join(DATA, 'startup.log') });
    times.push(await waitFor(ready, { child, since, intervalMs: 10 }));
    await stop(child);
  }
  const value = median(times);
  check(
    'Process',
    `start to ready (\`${['node', ...SERVICE_FLAGS, path.relative(ROOT, MAIN)].join(' ')}\` → \`/health/ready\` 200), existing embedded data directory`,
    `${fmt(value / 1000, 2)} s (median of ${times.length}: ${times.map((t) => fmt(t / 1000, 2)).join(', ')} s)`,
    '≤ 1 s',
    value <= 1000,
  );
}

/** p99 of a steady guarded read alone, then while 20 clients sign in continuously (alternating). */
async function scenarioLoginStorm(admin, users, readPath) {
  const label = `Login storm: guarded read at ${cfg.stormReadRate} req/s (${cfg.stormReadConnections} connection${cfg.stormReadConnections > 1 ? 's' : ''}) while ${cfg.stormClients} clients sign in continuously`;
  const token = await login(service.url, admin);
  const read = {
    url: service.url + readPath,
    headers: auth(token),
    connections: cfg.stormReadConnections,
    overallRate: cfg.stormReadRate,
    duration: cfg.seconds,
    raw: true,
  };
  await runLoad(LOAD, { ...read, duration: cfg.warmup });
  const alone = [];
  const storm = [];
  const logins = [];
  for (let round = 1; round <= cfg.stormRounds; round++) {
    alone.push(await runLoad(LOAD, read));
    const loginRun = runLoad(LOAD, {
      url: `${service.url}/api/v1/auth/login`,
      method: 'POST',
      connections: cfg.stormClients,
      duration: cfg.seconds + 3,
      login: { users: users.map(({ username, password }) => ({ username, password })) },
    });
    await sleep(1500); // let the storm reach its steady state first
    storm.push(await runLoad(LOAD, read));
    logins.push(await loginRun);
    log(
      `storm round ${round}: p99 alone ${fmt(alone.at(-1).latency.p99, 2)} ms, during storm ${fmt(storm.at(-1).latency.p99, 2)} ms, ${fmt(logins.at(-1).rps, 1)} logins/s`,
    );
  }
  // p99 of all rounds' answers pooled: one round's p99 rests on a handful of answers
  const p99Alone = summarize(alone.flatMap((r) => r.latencies)).p99;
  const p99Storm = summarize(storm.flatMap((r) => r.latencies)).p99;
  const ratio = p99Storm / p99Alone;
  check(
    label,
    `p99 during the storm ÷ p99 alone (answers of ${cfg.stormRounds} alternating rounds pooled)`,
    `${fmt(ratio, 2)}× (${fmt(p99Storm, 1)} vs ${fmt(p99Alone, 1)} ms; ${fmt(median(logins.map((r) => r.rps)), 1)} logins/s)`,
    '≤ 2×',
    ratio <= 2,
  );
  details.push(
    `**${label}** (bcrypt cost ${cfg.bcryptRounds}):\n\n| Round | alone p50 / p99 (ms) | storm p50 / p99 (ms) | reads/s alone / storm | logins/s | login p50 / p99 (ms) | login statuses |\n|---|---|---|---|---|---|---|\n` +
      alone
        .map(
          (a, i) =>
            `| ${i + 1} | ${fmt(a.latency.p50, 2)} / ${fmt(a.latency.p99, 2)} | ${fmt(storm[i].latency.p50, 2)} / ${fmt(storm[i].latency.p99, 2)} | ${fmt(a.rps, 0)} / ${fmt(storm[i].rps, 0)} | ${fmt(logins[i].rps, 1)} | ${fmt(logins[i].latency.p50, 0)} / ${fmt(logins[i].latency.p99, 0)} | ${statusLine(logins[i])} |`,
        )
        .join('\n'),
  );
}

/** The audit page at 10 thousand rows and at `largeRows`: first page, 200 cursors deep, filtered. */
/**
 * The audit page at 10 thousand and at `cfg.largeRows` rows. Each size has a database of its own —
 * the large one is the run's database, the small one gets a second instance of the service — so
 * the two are measured in alternating rounds (small, large, large, small…) like the A/B scenarios,
 * and machine noise hits both alike; the ratio is the median of the per-round ratios.
 */
async function scenarioAudit(admin, users) {
  const actorIds = users.map((u) => u.id);
  const now = new Date();
  smallDbName = `${dbName}_small`;
  await adminPool.query(`CREATE DATABASE ${smallDbName}`);
  const smallUrl = withDatabase(serverUrl, smallDbName);
  smallService = await startService(smallUrl, 'service-small');
  const smallDb = new pg.Pool({ connectionString: smallUrl, max: 2 });
  smallDb.on('error', () => {});
  const stores = [];
  try {
    for (const [rows, target, pool] of [
      [cfg.smallRows, smallService, smallDb],
      [cfg.largeRows, service, db],
    ]) {
      const t = performance.now();
      const filters = await seedAudit(pool, { rows, actorIds, now, log: (m) => log(m) });
      log(`seeded ${rows} audit rows in ${fmt((performance.now() - t) / 1000, 1)} s`);
      const token = await login(target.url, admin);
      const base = '/api/v1/audit/events?limit=50';
      const queries = {
        'first page': base,
        [`page ${cfg.deepPages} (cursor)`]: await cursorAt(target.url, token, base, cfg.deepPages),
        'actor filter': `${base}&actorUserId=${filters.actorUserId}`,
        'target filter': `${base}&targetType=${filters.target.targetType}&targetId=${filters.target.targetId}`,
        'time-window filter': `${base}&from=${encodeURIComponent(filters.window.from)}&to=${encodeURIComponent(filters.window.to)}`,
      };
      const items = {};
      for (const [name, query] of Object.entries(queries)) {
        const probe = await get(target.url, query, token);
        if (probe.status !== 200) throw new Error(`audit ${name}: ${probe.status} ${JSON.stringify(probe.body)}`);
        items[name] = probe.body.items.length;
        await runLoad(LOAD, { url: target.url + query, headers: auth(token), connections: 1, duration: 1 }); // warm-up
      }
      stores.push({ rows, target, token, queries, items, runs: Object.fromEntries(Object.keys(queries).map((n) => [n, []])) });
    }
    for (let round = 0; round < cfg.rounds; round++) {
      for (const name of Object.keys(stores[0].queries)) {
        for (const store of round % 2 ? [...stores].reverse() : stores) {
          const r = await runLoad(LOAD, {
            url: store.target.url + store.queries[name],
            headers: auth(store.token),
            connections: 1,
            duration: cfg.auditSeconds,
          });
          store.runs[name].push(r);
          log(`audit ${store.rows} rows, ${name}, round ${round + 1}: p50 ${fmt(r.latency.p50, 2)} ms`);
        }
      }
    }
  } finally {
    await smallDb.end().catch(() => {});
    await stop(smallService.child);
    smallService = undefined;
  }
  const [small, large] = stores;
  const largeLabel = cfg.largeRows >= 1_000_000 ? `${cfg.largeRows / 1_000_000}M` : `${cfg.largeRows / 1000}k`;
  const label = 'Audit page `GET /api/v1/audit/events?limit=50`, 1 connection';
  const p50 = (runs) => median(runs.map((r) => r.latency.p50));
  const p99 = (runs) => median(runs.map((r) => r.latency.p99));
  const rows = [];
  for (const name of Object.keys(small.queries)) {
    const ratios = small.runs[name].map((r, i) => large.runs[name][i].latency.p50 / r.latency.p50);
    const ratio = median(ratios);
    check(
      label,
      `${name}: p50 at ${largeLabel} ÷ p50 at 10k rows`,
      `${fmt(ratio, 2)}× (${fmt(p50(large.runs[name]), 2)} vs ${fmt(p50(small.runs[name]), 2)} ms)`,
      '≤ 1.3×',
      ratio <= 1.3,
    );
    rows.push(
      `| ${name} | ${fmt(p50(small.runs[name]), 2)} / ${fmt(p99(small.runs[name]), 2)}, ${small.items[name]} | ` +
        `${fmt(p50(large.runs[name]), 2)} / ${fmt(p99(large.runs[name]), 2)}, ${large.items[name]} | ${ratios.map((x) => fmt(x, 2)).join(', ')} |`,
    );
  }
  details.push(
    `**${label}** (${cfg.rounds} alternating rounds of ${cfg.auditSeconds} s per query and size; medians; the 10k store is served by a second instance of the service on a database of its own):\n\n` +
      `| Query | 10k rows: p50 / p99 (ms), items | ${largeLabel} rows: p50 / p99 (ms), items | per-round ratios of p50 |\n|---|---|---|---|\n` +
      rows.join('\n'),
  );
}

/** Server CPU per answer, service ÷ baseline (no target: it explains the throughput ratio). */
function cpuCheck(label, ab) {
  const s = ab.median('service', (r) => r.cpuMsPerRequest);
  const b = ab.median('baseline', (r) => r.cpuMsPerRequest);
  check(label, 'server CPU per answer, service ÷ baseline (no target)', `${fmt(s / b, 2)}× (${fmt(s, 3)} vs ${fmt(b, 3)} ms)`, '—', undefined);
}

/**
 * What the floor of the stack says (no targets): how close NestJS + Fastify + passport alone come
 * to the hand-written baseline, and how much of the service's CPU per answer is its own work on
 * top of that floor (request context, logging, metrics, security headers, interceptors, TypeORM).
 */
function floorChecks(label, ab) {
  const f = ab.ratio((r) => r.rps, 'floor');
  check(
    label,
    'throughput, floor of the stack ÷ baseline (no target)',
    `${fmt(f, 2)}× (${fmt(
      ab.median('floor', (r) => r.rps),
      0,
    )} req/s)`,
    '—',
    undefined,
  );
  const s = ab.median('service', (r) => r.cpuMsPerRequest);
  const fl = ab.median('floor', (r) => r.cpuMsPerRequest);
  check(
    label,
    'server CPU per answer, service ÷ floor of the stack (no target)',
    `${fmt(s / fl, 2)}× (${fmt(s, 3)} vs ${fmt(fl, 3)} ms)`,
    '—',
    undefined,
  );
}

/** The query of page `pages` (following nextCursor pages − 1 times). */
async function cursorAt(url, token, base, pages) {
  let query = base;
  for (let page = 1; page < pages; page++) {
    const res = await get(url, query, token);
    if (res.status !== 200 || !res.body.nextCursor) throw new Error(`audit cursor walk stopped at page ${page}: ${res.status}`);
    query = `${base}&cursor=${encodeURIComponent(res.body.nextCursor)}`;
  }
  return query;
}

/**
 * Alternates service and baseline (A B A B…) for cfg.rounds rounds after one warm-up run each, so
 * machine noise hits both alike; ratios are the median of the per-round ratios.
 */
async function abRounds(name, optionsFor, extra = []) {
  const targets = [
    { name: 'service', url: service.url, pid: service.child.pid },
    { name: 'baseline', url: baseline.url, pid: baseline.child.pid },
    ...extra.map((t) => ({ name: t.name, url: t.url, pid: t.child.pid })),
  ];
  for (const target of targets) await runLoad(LOAD, { ...optionsFor(target, 'W'), duration: cfg.warmup });
  const runs = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= cfg.rounds; round++) {
    for (const target of targets) {
      const cpuBefore = cpuSeconds(target.pid);
      const r = await runLoad(LOAD, { ...optionsFor(target, round), duration: cfg.seconds });
      // the server's own CPU per answer: hardly moved by other load on the machine, unlike req/s
      r.cpuMsPerRequest = ((cpuSeconds(target.pid) - cpuBefore) * 1000) / Object.values(r.statusCodes).reduce((a, b) => a + b, 0);
      if (r.ok === 0) throw new Error(`${name} ${target.name}: no successful answer (${statusLine(r)})`);
      runs[target.name].push(r);
      log(
        `${name} round ${round} ${target.name}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.latency.p50, 2)} ms, p99 ${fmt(r.latency.p99, 2)} ms, CPU ${fmt(r.cpuMsPerRequest, 3)} ms/request (${statusLine(r)})`,
      );
    }
  }
  return {
    runs,
    median: (target, f) => median(runs[target].map(f)),
    /** median over the rounds of f(of) ÷ f(baseline) */
    ratio: (f, of = 'service') => median(runs[of].map((s, i) => f(s) / f(runs.baseline[i]))),
    table: (label) =>
      `**${label}** (${cfg.rounds} rounds of ${cfg.seconds} s each, alternating; CPU = the server process's own CPU time per answer):\n\n| Round | service req/s | baseline req/s | ratio | service p50 / p99 (ms) | baseline p50 / p99 (ms) | CPU ms/request service / baseline |\n|---|---|---|---|---|---|---|\n` +
      runs.service
        .map((s, i) => {
          const b = runs.baseline[i];
          return `| ${i + 1} | ${fmt(s.rps, 0)} | ${fmt(b.rps, 0)} | ${fmt(s.rps / b.rps, 2)} | ${fmt(s.latency.p50, 2)} / ${fmt(s.latency.p99, 2)} | ${fmt(b.latency.p50, 2)} / ${fmt(b.latency.p99, 2)} | ${fmt(s.cpuMsPerRequest, 3)} / ${fmt(b.cpuMsPerRequest, 3)} |`;
        })
        .join('\n') +
      (runs.floor
        ? `\n\nThe floor of the stack (bench/floor/server.ts: NestJS + Fastify + passport-jwt, the baseline's statements), in the same alternation:\n\n| Round | floor req/s | floor ÷ baseline | floor p50 / p99 (ms) | CPU ms/request floor |\n|---|---|---|---|---|\n` +
          runs.floor
            .map(
              (f, i) =>
                `| ${i + 1} | ${fmt(f.rps, 0)} | ${fmt(f.rps / runs.baseline[i].rps, 2)} | ${fmt(f.latency.p50, 2)} / ${fmt(f.latency.p99, 2)} | ${fmt(f.cpuMsPerRequest, 3)} |`,
            )
            .join('\n')
        : ''),
  };
}

/**
 * Tamper evidence: (1) the verification of `sealEvents` sealed audit events (every row rehashed,
 * every seal's digest and signature checked), timed in the bench process with the service's own
 * code; (2) the audited create under load with the seal job running (every second, far more often
 * than its 5-minute schedule) against the same service without it, in alternating rounds.
 */
async function scenarioSeal(admin, dbUrl) {
  const tools = await sealTools(MAIN, dbUrl, path.join(DATA, 'service'));
  try {
    const n = cfg.sealEvents;
    const label = `Audit seals: verification of ${n.toLocaleString('en-US')} sealed events`;
    const users = (await db.query(`SELECT id FROM users ORDER BY id LIMIT 4`)).rows.map((r) => r.id);
    await seedAudit(db, { rows: n, actorIds: users, log });
    let t = performance.now();
    await tools.backfill('audit_events');
    const hashMs = performance.now() - t;
    t = performance.now();
    const sealed = await tools.seal('audit_events');
    const sealMs = performance.now() - t;
    log(
      `sealed ${sealed.covered} events in ${sealed.seals} seals (${fmt(sealMs / 1000, 1)} s; hashing the seeded rows took ${fmt(hashMs / 1000, 1)} s)`,
    );
    t = performance.now();
    const report = await tools.verify(['audit_events']);
    const verifySeconds = (performance.now() - t) / 1000;
    const store = report.stores[0];
    log(`verified ${store.events} events, ${store.seals} seals in ${fmt(verifySeconds, 1)} s: ${report.intact ? 'intact' : 'NOT intact'}`);
    check(
      label,
      'seconds (rehash every row, every seal digest and signature)',
      `${fmt(verifySeconds, 1)} s (${fmt(store.events / verifySeconds / 1000, 0)} thousand events/s, ${report.intact ? 'intact' : 'NOT INTACT'})`,
      '≤ 60 s and intact',
      verifySeconds <= 60 && report.intact && store.events === n,
    );
    details.push(
      `**${label}**: seeded set-based, hashed in ${fmt(hashMs / 1000, 1)} s, sealed into ${sealed.seals} seals in ${fmt(sealMs / 1000, 1)} s; verification read and rehashed ${store.events.toLocaleString('en-US')} events in ${fmt(verifySeconds, 2)} s.`,
    );

    const mutation = 'Audited create `POST /api/v1/admin/medios` with the seal job running every second vs not, 50 connections';
    const token = await login(service.url, admin);
    const load = (prefix, duration) =>
      runLoad(LOAD, {
        url: `${service.url}/api/v1/admin/medios`,
        method: 'POST',
        headers: auth(token),
        connections: 50,
        mutation: { prefix },
        duration,
      });
    await load('SW_', cfg.warmup);
    const runs = { without: [], with: [] };
    for (let round = 1; round <= cfg.rounds; round++) {
      runs.without.push(await load(`SN${round}_`, cfg.seconds));
      let sealing = true;
      let seals = 0;
      const loop = (async () => {
        while (sealing) {
          const r = await tools.seal('audit_events');
          seals += r.seals;
          await sleep(1000);
        }
      })();
      runs.with.push(await load(`SY${round}_`, cfg.seconds));
      sealing = false;
      await loop;
      log(
        `seal round ${round}: ${fmt(runs.without.at(-1).rps, 0)} req/s without sealing, ${fmt(runs.with.at(-1).rps, 0)} with (${seals} seals written)`,
      );
    }
    const ratio = median(runs.with.map((w, i) => w.rps / runs.without[i].rps));
    check(
      mutation,
      'throughput, with ÷ without sealing',
      `${fmt(ratio, 2)}× (${fmt(median(runs.with.map((r) => r.rps)), 0)} vs ${fmt(median(runs.without.map((r) => r.rps)), 0)} req/s)`,
      '≥ 0.9×',
      ratio >= 0.9,
    );
    details.push(
      `**${mutation}** (${cfg.rounds} rounds of ${cfg.seconds} s, alternating): ` +
        runs.with.map((w, i) => `round ${i + 1}: ${fmt(runs.without[i].rps, 0)} → ${fmt(w.rps, 0)} req/s`).join('; ') +
        '. After the rounds: ' +
        ((await tools.verify(['audit_events'])).intact ? 'the trail verifies intact.' : 'the trail does NOT verify.'),
    );
  } finally {
    await tools.close();
  }
}

// ====================================================================================== plumbing

function machineFacts() {
  const cpus = os.cpus();
  return {
    cpus: `${cpus.length} × ${cpus[0]?.model?.trim() ?? 'unknown CPU'}`,
    memory: `${fmt(os.totalmem() / 1024 ** 3, 1)} GiB`,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

async function startDatabaseServer() {
  if (process.env.DATABASE_URL) {
    facts.database = 'the server of DATABASE_URL';
    return process.env.DATABASE_URL;
  }
  const { startEmbeddedPostgres } = await import(pathToFileURL(path.join(path.dirname(MAIN), 'database/embedded/embedded-postgres.js')).href);
  pgHandle = await startEmbeddedPostgres({ dataDir: path.join(DATA, 'main'), log: () => {} });
  facts.database = 'embedded (bench/.data/main)';
  return pgHandle.url;
}

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function serviceEnv(extra) {
  return {
    ...process.env,
    NODE_ENV: 'development',
    ADMIN_PASSWORD: adminPassword,
    JOBS_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    BCRYPT_ROUNDS: String(cfg.bcryptRounds),
    ...extra,
  };
}

async function startService(dbUrl, name = 'service') {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = startNode(MAIN, {
    nodeArgs: [...SERVICE_FLAGS, ...nodeArgs(name)],
    // a port of its own for the metrics listener: the audit scenario runs two instances at once
    env: serviceEnv({ DATABASE_URL: dbUrl, PORT: String(port), METRICS_PORT: String(metricsPort), DATA_DIR: path.join(DATA, 'service') }),
    cwd: ROOT,
    logFile: path.join(DATA, `${name}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health/ready`, { child, timeoutMs: 180_000 });
  log(`service ready on ${url} (pid ${child.pid})`);
  return { child, url, port, metricsPort };
}

function startBaseline(dbUrl, servicePort) {
  return startComparison('baseline', BASELINE, nodeArgs('baseline'), dbUrl, servicePort);
}

/** The floor of the stack, with the Node flags of the service (the heap settings are part of the comparison). */
function startFloor(dbUrl, servicePort) {
  return startComparison('floor', FLOOR, [...SERVICE_FLAGS, ...nodeArgs('floor')], dbUrl, servicePort);
}

/** A server the service is compared with: on the same database, verifying tokens with the service's JWKS. */
async function startComparison(name, script, flagsOfNode, dbUrl, servicePort) {
  const port = await freePort();
  const child = startNode(script, {
    nodeArgs: flagsOfNode,
    env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(port), JWKS_URL: `http://127.0.0.1:${servicePort}/.well-known/jwks.json` },
    cwd: ROOT,
    logFile: path.join(DATA, `${name}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/health`, { child, timeoutMs: 30_000 });
  log(`${name} ready on ${url} (pid ${child.pid})`);
  return { name, child, url, port };
}

function auth(token) {
  return { authorization: `Bearer ${token}` };
}

async function request(base, method, pathname, token, body) {
  const res = await globalThis.fetch(base + pathname, {
    method,
    headers: { ...(token ? auth(token) : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, bytes: Buffer.byteLength(text) };
}
function get(base, pathname, token) {
  return request(base, 'GET', pathname, token);
}
function post(base, pathname, token, body) {
  return request(base, 'POST', pathname, token, body);
}

async function login(base, user) {
  const res = await post(base, '/api/v1/auth/login', undefined, user);
  if (res.status !== 200) throw new Error(`login as ${user.username}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.accessToken;
}

function statusLine(r) {
  const codes = Object.entries(r.statusCodes)
    .map(([code, n]) => `${n}× ${code}`)
    .join(', ');
  return `${codes || 'no answers'}${r.errors ? `, ${r.errors} errors` : ''}${r.timeouts ? `, ${r.timeouts} timeouts` : ''}`;
}

function countTree(nodes, level = 1) {
  let count = 0;
  let depth = 0;
  for (const n of nodes ?? []) {
    const sub = countTree(n.hijos, level + 1);
    count += 1 + sub.nodes;
    depth = Math.max(depth, level, sub.depth);
  }
  return { nodes: count, depth };
}
