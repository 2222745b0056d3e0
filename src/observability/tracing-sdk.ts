import { FastifyOtelInstrumentation } from '@fastify/otel';
import * as api from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { TediousInstrumentation } from '@opentelemetry/instrumentation-tedious';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import { SECRET_QUERY_PARAMS } from '../common/logging/logging.js';
import type { TracingOptions } from './tracing.js';

/** Paths that are not traced: the probes, polled every few seconds, would drown the real traffic. */
const UNTRACED = /^\/health\//;

/**
 * Query parameters whose values a server span's `url.query` shows as `REDACTED`: the
 * instrumentation's own list (signed cloud URLs), which this option replaces, and the ones the
 * logs redact. The instrumentation compares names exactly, where the logs ignore case: each of
 * those is listed as written, in lower case, in upper case and capitalised.
 */
const REDACTED_QUERY_PARAMS = [
  ...['sig', 'Signature', 'AWSAccessKeyId', 'X-Goog-Signature', 'X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token'],
  ...new Set(SECRET_QUERY_PARAMS.flatMap((name) => [name, name.toLowerCase(), name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)])),
];

/**
 * The SDK itself, loaded only when tracing is on. Exporter, sampler, resource and propagators
 * come from the standard OTEL_* variables (W3C traceparent/baggage by default); the service name
 * defaults to medios-admin-api. Only traces: metrics are Prometheus' (metrics.ts), logs are pino's.
 */
export async function startSdk(options: TracingOptions, env: NodeJS.ProcessEnv) {
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ? undefined : 'medios-admin-api',
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
        // the service calls nothing over HTTP but its exporter
        disableOutgoingRequestInstrumentation: true,
      }),
      // fastify 5: the instrumentation the fastify project maintains (registered when fastify starts)
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: (opts) => UNTRACED.test(opts.url),
        // its url.path is the whole request URL, query included: the path alone, as the semantic
        // conventions define it (the HTTP span's url.query has the query, redacted)
        requestHook: (span, request) => span.setAttribute(ATTR_URL_PATH, request.url.split('?')[0] ?? ''),
      }),
      // statement text without values: parameters may carry personal data
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      new TediousInstrumentation(),
    ],
  });
  sdk.start();
  return { api, shutdown: () => sdk.shutdown() };
}
