/**
 * The service's entry point (`node dist/src/main.js`). Tracing starts before the server's modules
 * load, when the OTEL_* variables ask for it: its instrumentations patch http, fastify, pg and
 * tedious as they are first loaded (docs/operations.md).
 *
 * Node's compile cache is left off on purpose: it keeps the cached code of every loaded module in
 * memory for the life of the process (~13 MB of RSS for ~3,000 modules) to save ~0.13 s of a
 * start. `NODE_COMPILE_CACHE=<dir>` turns it on where starts matter more than memory
 * (docs/operations.md, "Memory"; figures in BENCHMARKS.md).
 */
import { startTracing } from './observability/tracing.js';

await startTracing();
await import('./server.js');
