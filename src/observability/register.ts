/**
 * `node --import ./dist/src/observability/register.js <entry>`: starts tracing (when the OTEL_*
 * variables ask for it) before the entry point's modules load — for the CLI; main.ts does the
 * same itself.
 */
import { startTracing } from './tracing.js';

await startTracing();
