/**
 * The service's entry point (`node dist/src/main.js`). Tracing starts before the server's modules
 * load, when the OTEL_* variables ask for it: its instrumentations patch http, fastify, pg and
 * tedious as they are first loaded (docs/operations.md). Node's compile cache is turned on first —
 * the static imports of server.ts would otherwise be compiled before any of its code runs — so a
 * restart reuses the compiled code of the module graph instead of compiling it again (start to
 * ready, BENCHMARKS.md). The cache lives in the OS temp directory (NODE_COMPILE_CACHE overrides
 * it); where it cannot be written the service starts as usual.
 */
import { enableCompileCache } from 'node:module';

import { startTracing } from './observability/tracing.js';

enableCompileCache?.();
await startTracing();
await import('./server.js');
