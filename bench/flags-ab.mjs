// Node flags of the service, or two builds of it, A against B: two instances on one database, the
// guarded read and the audited create driven in alternating rounds (a first, unmeasured round of
// --warmup seconds each), each instance's own CPU per answer from /proc (what the change costs,
// little moved by other load on the machine: the per-round ratio B ÷ A even less) and its RSS after
// every round (what it saves).
//
//   node bench/flags-ab.mjs --a="" --b="--max-semi-space-size=8 --heap-growing-percent=30" [--rounds 3] [--seconds 8]
//   node bench/flags-ab.mjs --service-a=/tmp/before/dist/src/main.js [--service-b=dist/src/main.js] --rounds 14 --seconds 4
//   node bench/flags-ab.mjs --env-b="MALLOC_ARENA_MAX=2" (environment of one instance, NAME=value words:
//   what glibc reads as the process starts, which no Node flag can set)
//
// A build to compare is a copy of `dist/` whose main.js sits in a `dist/src/` of its own (as for
// `npm run bench -- --service`).
//
// DATABASE_URL: a PostgreSQL server (a database medios_flags_<time> is made there and dropped).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { cpuSeconds, freePort, killAll, rssMb, rssPartsMb, runLoad, startNode, stop, waitFor } from './lib/proc.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const { values: flags } = parseArgs({
  options: {
    a: { type: 'string', default: '' },
    b: { type: 'string', default: '' },
    'service-a': { type: 'string' },
    'service-b': { type: 'string' },
    'env-a': { type: 'string', default: '' },
    'env-b': { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '15' },
  },
});
const rounds = Number(flags.rounds);
const seconds = Number(flags.seconds);
const warmup = Number(flags.warmup);
const entry = (file) => (file ? path.resolve(file) : path.join(ROOT, 'dist/src/main.js'));
const server = process.env.DATABASE_URL;
if (!server) throw new Error('DATABASE_URL: a PostgreSQL server');
const name = `medios_flags_${Date.now()}`;
const admin = new pg.Client(server);
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const dbUrl = new URL(server);
dbUrl.pathname = `/${name}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'medios-flags-'));
const password = 'Flags-Bench-Passw0rd!';
const instances = [];
try {
  const envOf = (words) =>
    Object.fromEntries(
      words
        .split(/\s+/)
        .filter(Boolean)
        .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
  for (const [label, words, main, extraEnv] of [
    ['A', flags.a, entry(flags['service-a']), flags['env-a']],
    ['B', flags.b, entry(flags['service-b']), flags['env-b']],
  ]) {
    const port = await freePort();
    const child = startNode(main, {
      nodeArgs: words.split(/\s+/).filter(Boolean),
      env: {
        ...process.env,
        DATABASE_URL: dbUrl.toString(),
        PORT: String(port),
        METRICS_PORT: '0',
        DATA_DIR: dataDir,
        ADMIN_PASSWORD: password,
        JOBS_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        ...envOf(extraEnv),
      },
      cwd: ROOT,
      logFile: path.join(dataDir, `${label}.log`),
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/health/ready`, { child, timeoutMs: 180_000 });
    instances.push({ label, words: [extraEnv, words].filter(Boolean).join(' '), main, child, url, rss: [], anon: [], read: [], create: [] });
  }
  const login = await globalThis.fetch(`${instances[0].url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const { accessToken } = await login.json();
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  const created = await (
    await globalThis.fetch(`${instances[0].url}/api/v1/admin/medios`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ codigo: 'FLAGS', nombre: 'x' }),
    })
  ).json();
  const load = path.join(BENCH_DIR, 'load.mjs');
  const measure = async (inst, kind, round) => {
    const before = cpuSeconds(inst.child.pid);
    const options =
      kind === 'read'
        ? { url: `${inst.url}/api/v1/admin/medios/${created.id}`, headers, connections: 50, duration: round === 0 ? warmup : seconds }
        : {
            url: `${inst.url}/api/v1/admin/medios`,
            method: 'POST',
            headers,
            connections: 50,
            duration: round === 0 ? warmup : seconds,
            mutation: { prefix: `F${inst.label}${round}X` },
          };
    const r = await runLoad(load, options);
    const cpu = cpuSeconds(inst.child.pid) - before;
    const ok = r.ok;
    inst[kind].push({ answers: ok, cpuMs: (cpu * 1000) / ok, rps: r.rps });
    inst.rss.push(Math.round(rssMb(inst.child.pid)));
    inst.anon.push(Math.round(rssPartsMb(inst.child.pid).anon));
  };
  for (const kind of ['read', 'create']) {
    for (let round = 0; round <= rounds; round++)
      for (const inst of round % 2 ? instances : [...instances].reverse()) await measure(inst, kind, round);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const inst of instances) {
    const line = (kind) =>
      `${kind}: CPU ms/answer median ${median(inst[kind].slice(1).map((x) => x.cpuMs)).toFixed(3)} (${inst[kind].map((x) => x.cpuMs.toFixed(3)).join(', ')}), answers ${inst[kind].map((x) => x.answers).join(', ')}`;
    console.log(
      `${inst.label} [${path.relative(ROOT, inst.main)} ${inst.words || 'no flags'}]\n  ${line('read')}\n  ${line('create')}\n  RSS after each run: ${inst.rss.join(' → ')} MB (of it anonymous: ${inst.anon.join(' → ')} MB)`,
    );
  }
  const [a, b] = instances;
  for (const kind of ['read', 'create']) {
    const ratios = a[kind].slice(1).map((x, i) => b[kind][i + 1].cpuMs / x.cpuMs);
    console.log(`${kind}: CPU per answer B ÷ A, median of the rounds ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(', ')})`);
  }
} finally {
  for (const inst of instances) await stop(inst.child);
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
  killAll();
}
