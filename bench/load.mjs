// One load run with autocannon, in its own process so the load generator never shares an event
// loop with the harness. Usage: node bench/load.mjs '<json options>'; prints one JSON line with
// the result on stdout.
//
// Options: url, method, headers, body, connections, duration (s), overallRate (req/s, optional),
// raw (also print every successful answer's latency),
// body generators: mutation {prefix} (unique medio codigos), login {users: [{username, password}]}.
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { summarize } from './lib/stats.mjs';

const opts = JSON.parse(process.argv[2] ?? '{}');

const request = { method: opts.method ?? 'GET', path: new URL(opts.url).pathname + new URL(opts.url).search };
if (opts.body !== undefined) request.body = JSON.stringify(opts.body);

if (opts.mutation) {
  // Unique codigos ([A-Z0-9_]{1,20}) for every request of every run: prefix + base-36 counter.
  let n = 0;
  request.setupRequest = (req) => {
    const codigo = `${opts.mutation.prefix}${(n++).toString(36).toUpperCase()}`;
    return { ...req, body: JSON.stringify({ codigo, nombre: `Medio ${codigo}` }) };
  };
}
if (opts.login) {
  // Each connection signs in as its own user, again and again.
  const users = opts.login.users;
  let next = 0;
  request.setupRequest = (req, context) => {
    context.user ??= users[next++ % users.length];
    return { ...req, body: JSON.stringify(context.user) };
  };
}

const latencies = [];
const statusCodes = {};

const instance = autocannon({
  url: new URL(opts.url).origin,
  connections: opts.connections ?? 10,
  duration: opts.duration ?? 5,
  overallRate: opts.overallRate,
  headers: { 'content-type': 'application/json', ...(opts.headers ?? {}) },
  requests: [request],
  excludeErrorStats: true,
});
const started = performance.now();
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
  if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
});

const result = await instance;
const elapsed = (performance.now() - started) / 1000;
const ok = latencies.length;
process.stdout.write(
  `${JSON.stringify({
    ok,
    elapsed,
    rps: ok / (result.duration || elapsed),
    latency: summarize(latencies),
    ...(opts.raw ? { latencies } : {}),
    statusCodes,
    errors: result.errors ?? 0,
    timeouts: result.timeouts ?? 0,
  })}\n`,
);
