import { bool, int, oneOf, readSettings, type ReadContext, type ValuesOf } from './settings.js';

/** Metrics and logs (tracing reads the OpenTelemetry SDK's own OTEL_* variables). */
export const OBSERVABILITY_SETTINGS = {
  /** port of the Prometheus listener (GET /metrics), on `host`; 0: no listener */
  // tests run many applications in one process: no listener unless a test asks for one
  metricsPort: int('METRICS_PORT', { min: 0, max: 65535, note: '(0 disables the metrics listener)', default: 9464, test: 0 }),
  logLevel: oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', test: 'silent' }),
  logPretty: bool('LOG_PRETTY', { default: false }),
};

export type ObservabilityConfig = ValuesOf<typeof OBSERVABILITY_SETTINGS>;

export function observabilityConfig(ctx: ReadContext): ObservabilityConfig {
  return readSettings(OBSERVABILITY_SETTINGS, ctx);
}
