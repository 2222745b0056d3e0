// Micro-benchmark behind "Request log line" in BENCHMARKS.md: the CPU of writing the one `info`
// line per request, with the service's pino options (redaction paths included; compiled sources
// in dist/, `npm run build` first), to a file as a container's stdout would be. The HTTP A/B of
// bench/request-log.mjs measures the same in the whole request, but on a shared machine its noise
// is larger than the line. Usage: node bench/micro/request-log-line.mjs [lines]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { REDACT_PATHS } from '../../dist/src/common/logging/logging.js';
import { requestLineLogger } from '../../dist/src/observability/request-telemetry.js';

const lines = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'request-log-line-'));
const destination = pino.destination({ dest: join(dir, 'out.log'), sync: true }); // pino's default for stdout: one write per line;
const fields = (i) => ({
  correlationId: '6b112b4a-9398-4466-ac3b-de3a6cf33c08',
  method: 'GET',
  route: '/api/v1/admin/medios/:id',
  status: 200,
  durationMs: 1.23 + (i % 7),
  actorId: 1,
});

/** `redacted`: the line through the root logger and its redaction; else through requestLineLogger (the service's). */
function run(level, redacted = false) {
  const root = pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
  const log = redacted ? root : requestLineLogger(root);
  for (let i = 0; i < 20_000; i++) if (log.isLevelEnabled('info')) log.info(fields(i), 'request completed'); // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < lines; i++) if (log.isLevelEnabled('info')) log.info(fields(i), 'request completed');
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / lines).toFixed(2);
}

const results = [];
for (let round = 0; round < 5; round++) results.push({ line: Number(run('info')), redacted: Number(run('info', true)), off: Number(run('warn')) });
destination.flushSync();
rmSync(dir, { recursive: true, force: true });
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
console.log(`µs of CPU per request, ${lines} lines per round, 5 rounds:`, results);
console.log(
  `median: the service's line ${median(results.map((r) => r.line))} µs, the same through the redacting root logger ${median(results.map((r) => r.redacted))} µs, LOG_LEVEL=warn (no line) ${median(results.map((r) => r.off))} µs`,
);
