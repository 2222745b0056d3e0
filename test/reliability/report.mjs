#!/usr/bin/env node
// Renders test-results/reliability.json (written by the suites of test/reliability/) into
// RELIABILITY.md: `node test/reliability/report.mjs [figures.json] [output.md]`.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replicasSection } from '../replicas/report-section.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const input = process.argv[2] ?? join(root, 'test-results', 'reliability.json');
const output = process.argv[3] ?? join(root, 'RELIABILITY.md');
const { suites } = JSON.parse(readFileSync(input, 'utf8'));

const SUITES = ['fail-closed', 'races', 'fuzz', 'token-attacks', 'crash', 'outage', 'secrets', 'append-only'];
// suites added later: rendered when their figures are present
const missing = SUITES.filter((s) => !suites[s]);
if (missing.length) {
  console.error(`no figures for: ${missing.join(', ')} — run \`npm run test:reliability\` first`);
  process.exit(1);
}
const f = Object.fromEntries(SUITES.map((s) => [s, suites[s].figures]));
const at = (s) => suites[s].recordedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
const n = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : String(x));
const esc = (s) => String(s).replace(/\|/g, '\\|');
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
const ok = (cond) => (cond ? 'held' : '**FAILED**');

const recorded = SUITES.map((s) => suites[s].recordedAt).sort();
const fc = f['fail-closed'];
const races = f.races;
const fuzz = f.fuzz;
const tokens = f['token-attacks'];
const crash = f.crash;
const outage = f.outage;
const secrets = f.secrets;
const appendOnly = f['append-only'];
const secretsFound = Object.values(secrets.found).flat().length;
// rendered when its suite has run (added after the others; older figure files lack it)
const starvation = suites.starvation?.figures;
const starvationRow = starvation
  ? `| Starvation: 40 concurrent wrong password changes (bcrypt cost ${starvation.storm.bcryptRounds}) by a user without permissions; three anonymous 70,000-key bodies | storm: **${starvation.storm.victimFailures} of ${starvation.storm.victimRequests}** answers to another user's guarded reads and \`/health/ready\` not 200, worst ${starvation.storm.worstVictimMs} ms (median ${starvation.storm.medianVictimMs} ms), attacker ${Object.entries(
      starvation.storm.attackStatuses,
    )
      .map(([k, v]) => `${k}: ${v}`)
      .join(
        ', ',
      )}; many keys: **${starvation.manyKeys.probeFailures} of ${starvation.manyKeys.probes}** \`/health/live\` answers not 200, worst ${starvation.manyKeys.worstProbeMs} ms, each body refused (400) within ${starvation.manyKeys.worstAnswerMs} ms in ${starvation.manyKeys.answerBytes} bytes, on sign-in 413 in ${starvation.manyKeys.signInAnswerMs} ms | ${ok(starvation.storm.victimFailures === 0 && starvation.manyKeys.probeFailures === 0)} |\n`
  : '';

const slow = suites['slow-clients']?.figures;
const slowRow = slow
  ? `| Slow clients: ${slow.unfinished} connections that never finish their request (a body, or headers), \`REQUEST_TIMEOUT_MS=${slow.requestTimeoutMs}\` | **${slow.answered408} of ${slow.unfinished}** answered 408 and closed after ${n(slow.closedAfterMs.min)}–${n(slow.closedAfterMs.max)} ms, **${slow.stillOpen} still open**; **${slow.liveFailures} of ${slow.liveProbes}** \`/health/live\` answers meanwhile not 200 | ${ok(slow.stillOpen === 0 && slow.answered408 === slow.unfinished && slow.liveFailures === 0)} |\n`
  : '';

const md = `# Reliability and security proof

Measured figures of \`npm run test:reliability\` (the suites in \`test/reliability/\`): how the
service behaves under faults, bad input, concurrency, crashes and outages, and that it lets no
one in and leaks nothing. Every figure below comes from a real run; this file is generated from
its results by \`node test/reliability/report.mjs\` (do not edit the tables by hand).

Run of ${recorded[0].slice(0, 10)} (suites recorded ${at(SUITES[0])} … ${recorded
  .at(-1)
  .replace('T', ' ')
  .replace(/\.\d+Z$/, ' UTC')}),
engine ${suites.fuzz.engine} (the embedded PostgreSQL of the test harness), Node ${process.versions.node}, ${cpus().length} CPU cores.

## The measured table

| Property | Figure | Result |
|---|---|---|
| Fail-closed: mutating operations of the OpenAPI document answered with an error and leaving every table unchanged while audit inserts fail | **${fc.held} of ${fc.operations}** operations held (${fc.exempt.length} exempt by design, listed below) | ${ok(fc.held === fc.operations)} |
| Races: uniqueness and state rules under ${races.attemptsPerRule} concurrent identical attempts | **${races.held} of ${races.rules}** rules held, ${n(races.requests)} requests, **${races.serverErrors} 5xx**, up to ${races.peakBusySessions} database sessions busy at once | ${ok(races.held === races.rules && races.serverErrors === 0)} |
| Fuzzing: OpenAPI-driven requests (fast-check, seed ${fuzz.seed}) to all ${fuzz.operations} operations | **${n(fuzz.requests)}** requests, **${fuzz.serverErrors} 5xx**, ${fuzz.invariantFailures} invariant failures, ${fuzz.requestsPerSecond} requests/s | ${ok(fuzz.serverErrors === 0 && fuzz.invariantFailures === 0)} |
| Token attacks: forged, altered, misdirected, stale and replayed tokens | **${tokens.refused} of ${tokens.vectors}** vectors refused with 401 and the expected security event | ${ok(tokens.refused === tokens.vectors)} |
| Crash: SIGKILL of the built server under ${crash.clients} clients of ${crash.mutationKinds} mutation kinds | **${crash.inFlightAtKill}** mutations in flight at the kill, **${crash.orphans} orphans** (changes without audit event, events without row, lost acknowledged writes, half-rotated tokens) | ${ok(crash.orphans === 0)} |
| Outage: PostgreSQL stopped for ${outage.outageSeconds} s under load | ${n(outage.requestsDuringOutage)} requests while down: **${n(outage.answered503)} answered 503** (the rest are the liveness probe's 200), slowest answer **${n(outage.maxAnswerMsDuringOutage)} ms** (median ${outage.p50AnswerMsDuringOutage} ms); **recovered ${n(outage.recoveryMsAfterDatabaseReturned)} ms** after the database returned; process kept running: ${outage.processKeptRunning ? 'yes' : 'NO'} | ${ok(outage.processKeptRunning && outage.maxAnswerMsDuringOutage <= 5000 && outage.recoveryMsAfterDatabaseReturned <= 5000 && outage.failedAfterRecovery === 0)} |
| Secrets: passwords, temporary passwords, access and refresh tokens searched in debug logs, audit and security events, every table | **${secretsFound} found** among ${secrets.secretValues} secret values, ${n(secrets.logLines)} log lines, ${secrets.auditEvents} audit and ${secrets.securityEvents} security events, ${secrets.tablesSearched} tables | ${ok(secretsFound === 0)} |
| Append-only audit store: statements the service's role \`${appendOnly.role}\` is refused | **${appendOnly.refused.length}** refused (UPDATE, DELETE, TRUNCATE of both event stores and their partitions, history, schema changes, early purges); ${appendOnly.allowed.length} allowed (INSERT, SELECT, the jobs through definer functions) | ${ok(appendOnly.refused.length > 0)} |
${starvationRow}${slowRow}
## How to run

\`\`\`sh
npm run build                 # the crash, outage and secret suites start dist/src/main.js (built if stale)
npm run test:reliability      # all suites, 1.5 to 3 minutes on 2 cores; prints one summary line per suite
node test/reliability/report.mjs   # renders test-results/reliability.json into this file
\`\`\`

Each suite prints its summary line (\`fail-closed: N operations, N held\`, \`fuzz: N requests, 0 5xx\`, …)
and stores its detailed figures in \`test-results/reliability.json\`. The built servers' complete
output (LOG_LEVEL=debug) is kept in \`test-results/reliability-logs/\`.

- \`FUZZ_RUNS=<n>\`: requests of the fuzzing suite (default 20,000, the CI profile).
- \`FUZZ_SEED=<seed>\`: replays a fuzzing run's requests exactly (each failure prints its seed and request; with \`FUZZ_CONCURRENCY=1\` their order too).
- \`FUZZ_ONLY='<METHOD path>'\`: fuzzes the operations whose \`METHOD path\` contains the text.
- One suite: \`npm run test:reliability -- test/reliability/races.e2e-spec.ts\`.

The suites run in-process on the harness's database (fastify inject) except where a real process
is the point: crash, outage and secrets start the compiled server as a child process. The
in-process apps connect as the restricted role \`medios_app\`, like the production service
(\`DATABASE_APP_ROLE\`), so every request also proves the role has the rights it needs.

## What each figure means

**Fail-closed** (\`fail-closed.e2e-spec.ts\`). The mutating operations (POST, PUT, PATCH, DELETE) are
read from the OpenAPI document of the running app, so a new endpoint is covered automatically: the
suite fails while an operation has neither a request builder nor a stated exemption. For each one it
prepares the data the request needs, checksums every table (row count and
\`md5(string_agg(row::text))\`), installs a trigger that makes every \`audit_events\` insert raise,
sends the valid request, removes the trigger and checksums again. *Held* means: a non-2xx error in
the contract's shape, naming nothing of the failure, every table unchanged — and the same request
then succeeds with the store back and writes its audit event (so the request was valid and the
comparison is not blind). Exempt by design:

${table(
  ['Operation', 'Why it writes no audit event'],
  fc.exempt.map((e) => [`\`${e.operation}\``, e.reason]),
)}

**Races** (\`races.e2e-spec.ts\`). Each rule gets ${races.attemptsPerRule} identical requests at once, on a pool of
more connections than requests (warmed first); *held* means exactly one success, the other
${races.attemptsPerRule - 1} the contract's answer, no 5xx, and exactly one row in the store. *Busy sessions* is
the most sessions of the service seen working in the database at the same time during a burst
(sampled from \`pg_stat_activity\`): the attempts really overlapped.

${table(
  ['Rule', 'Successes', 'Contract answers', '5xx', 'Rows after', 'Busy sessions'],
  races.outcomes.map((o) => [o.rule, o.winners, o.losers, o.serverErrors, o.rows ?? '—', o.peakBusySessions]),
)}

**Fuzzing** (\`fuzz.e2e-spec.ts\`). For every operation of the OpenAPI document, fast-check generates
path, query and body values from its schemas — well-formed (patterns, enums, ranges, the ids and
codes that exist) and hostile (wrong types, 300,000-character strings, nesting 20,000 deep,
unicode, lone surrogates and NUL, SQL and JSON metacharacters, huge and negative numbers, missing
and extra fields, malformed JSON, non-JSON content types, over-long paths) — as the admin, as a
user without permissions, with a garbage token and without one. Invariants on every answer: no 5xx;
an error body in its module's shape (problem+json with \`type, title, status, detail, instance,
code, correlationId[, errors]\`; \`{error, message}\` under \`/api/v1/admin/fiscal\`); no stack trace,
SQL text or secret in any body; an \`X-Correlation-Id\` GUID. Answers of the run:
${Object.entries(fuzz.statuses)
  .map(([s, c]) => `${s}: ${n(c)}`)
  .join(', ')}; by kind of request: ${Object.entries(fuzz.byKind)
  .map(([k, c]) => `${k} ${n(c)}`)
  .join(', ')}.
${fuzz.operationsReachedWith2xx} of ${fuzz.operations} operations answered a 2xx at least once (the generated input reached the handler's end);${fuzz.operationsNeverAnswered2xx.length ? ` not the ${fuzz.operationsNeverAnswered2xx.length} that need state a generator cannot guess (${fuzz.operationsNeverAnswered2xx.map((o) => `\`${o}\``).join(', ')}), which the other suites cover.` : ' all of them.'}

**Token attacks** (\`token-attacks.e2e-spec.ts\`). One table of ${tokens.vectors} vectors (${tokens.accessVectors} against guarded
routes, ${tokens.refreshVectors} against refresh); a control row first proves that a token built by the same
forge, without a flaw, is accepted. Each vector must answer 401 (\`no_autenticado\` / \`refresh_invalido\`)
and leave exactly the listed security event (none for a refused access token), and the presented
refresh token's family must stay untouched — or be fully revoked on a replay.

${table(
  ['Vector', 'Channel', 'Answer', 'Security event'],
  tokens.results.map((r) => [r.vector, r.channel, r.status, r.event]),
)}

**Crash** (\`crash.e2e-spec.ts\`). The compiled server on its own database, ${crash.clients} clients looping over
${crash.mutationKinds} kinds of mutation (creates of medios, secciones, puntos de venta, users, roles, rubros,
product types, prices; renames; deactivate/reactivate; refresh-token rotation), SIGKILL after
${n(crash.mutationsStarted - crash.inFlightAtKill)} completed mutations with ${crash.inFlightAtKill} in flight, restart on the same database. *Orphans*
counts: rows without their create/deactivate/price audit event, create events whose row does not
exist, acknowledged (2xx) writes missing after the restart (${n(crash.acknowledgedCreates)} checked), refresh-token
families with more than one active token, and rotated tokens without a successor.

**Outage** (\`outage.e2e-spec.ts\`). The compiled server on a separate embedded PostgreSQL, six clients
(reads, writes, \`/auth/me\`, the three probes); the database is stopped for ${outage.outageSeconds} s and restarted on
the same port. While it is down every API request must be a 503 \`servicio_no_disponible\` problem
document with \`Retry-After\` within 5 s, \`/health/ready\` and \`/health/audit\` 503 (${outage.readyProbe503DuringOutage} readiness
answers were), \`/health/live\` 200, and the process must keep running; *recovered* is the time from
the database's return to the first successful database-backed answer (at most 5 s), after which
${n(outage.requestsAfterRecovery)} requests all succeeded (${outage.failedAfterRecovery} failed).

**Secrets** (\`secrets.e2e-spec.ts\`). The compiled server at LOG_LEVEL=debug through every operation
that handles a secret (${secrets.kinds.join('; ')}). Each value is searched in every captured log
line, in every audit and security event (metadata included) and in every table. The crash and
outage suites scan their servers' logs the same way (${crash.secretsInServerLogs} and ${outage.secretsInServerLogs} found).

**Append-only audit store** (\`append-only.e2e-spec.ts\`; migration
\`migrations/postgres/1763712600000-append-only.ts\`, SQL Server counterpart in \`migrations/mssql/\`).
The service's pool switches to the NOLOGIN role \`medios_app\` on every connection
(\`-c role=medios_app\`, \`DATABASE_APP_ROLE\`); migrations and the CLI's admin connections keep the
owner login. \`medios_app\` may INSERT and SELECT \`audit_events\` and \`security_events\` but not UPDATE,
DELETE or TRUNCATE them, has no right at all on their partitions, may only add to the history tables,
and may not change the retention settings or the schema. The retention job deletes through
SECURITY DEFINER functions owned by the owner (\`purge_events\`, \`purge_event_partitions\`,
\`purge_history\`), which refuse a cutoff younger than the retention; \`ensure_monthly_partitions\` is
one too. Refused to the service:

${table(
  ['Statement', 'Error'],
  appendOnly.refused.map((r) => [`\`${r.statement}\``, r.error]),
)}

Allowed: ${appendOnly.allowed.join('; ')}.
${
  starvation
    ? `
**Starvation** (\`starvation.e2e-spec.ts\`). From the victim's side. A user without permissions sends
${starvation.storm.attackRequests} concurrent \`PUT /api/v1/users/me/password\` with a wrong current password (bcrypt cost
${starvation.storm.bcryptRounds}, pool of ${starvation.storm.poolSize} connections) while the admin's guarded reads and \`/health/ready\` run
back to back for the whole storm (${n(starvation.storm.stormMs)} ms): ${starvation.storm.victimRequests} victim answers, ${starvation.storm.victimFailures} not 200,
worst ${starvation.storm.worstVictimMs} ms, median ${starvation.storm.medianVictimMs} ms. The attacker gets only 400 and 429 (${Object.entries(
        starvation.storm.attackStatuses,
      )
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}): password work holds no connection, and its sign-in throttle bounds what reaches bcrypt.
Then three anonymous ${n(starvation.manyKeys.bodyBytes)}-byte bodies of 70,000 keys: each refused with 400 in at most
${starvation.manyKeys.worstAnswerMs} ms (answer of ${starvation.manyKeys.answerBytes} bytes), the same body on sign-in 413 in ${starvation.manyKeys.signInAnswerMs} ms,
while \`/health/live\` answered ${starvation.manyKeys.probes} times, ${starvation.manyKeys.probeFailures} not 200, worst ${starvation.manyKeys.worstProbeMs} ms.
`
    : ''
}

${replicasSection(suites)}`;

// the repository's Prettier style (CI checks it), when Prettier is installed
let formatted = md;
try {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(output)) ?? {};
  formatted = await prettier.format(md, { ...options, parser: 'markdown' });
} catch {
  /* unformatted, but complete */
}
writeFileSync(output, formatted);
console.log(`${relative(process.cwd(), output)} written from ${relative(process.cwd(), input)}`);
