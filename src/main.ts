/**
 * The service's entry point (`node dist/src/main.js`). Tracing starts before the server's modules
 * load, when the OTEL_* variables ask for it: its instrumentations patch http, fastify, pg and
 * tedious as they are first loaded (docs/operations.md).
 *
 * Node's compile cache is left off on purpose: it saves ~0.15 s of a start, but the memory of its
 * cached code (~15 MB for ~3,000 modules) stays with the process even once server.ts has flushed
 * it, and the RSS after load is what the service is sized by. `NODE_COMPILE_CACHE=<dir>` turns it
 * on where starts matter more than memory (docs/operations.md, "Memory"; figures in BENCHMARKS.md).
 */
import { startTracing } from './observability/tracing.js';

await startTracing();
await import('./server.js');
