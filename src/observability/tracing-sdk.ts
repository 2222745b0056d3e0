import { FastifyOtelInstrumentation } from '@fastify/otel';
import * as api from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { TediousInstrumentation } from '@opentelemetry/instrumentation-tedious';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_CLIENT_ADDRESS, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { IncomingMessage } from 'node:http';
import { SECRET_QUERY_PARAMS } from '../common/logging/logging.js';
import { DiagnosticsLog, diagnosticsLevel } from './diagnostics-log.js';
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
  // Without a trusted proxy (TRUST_PROXY unset or false, the default) the service takes the client
  // from the socket and ignores X-Forwarded-For and Forwarded, which any client can write: the HTTP
  // span does too, instead of the instrumentation's reading of those headers. Behind a trusted
  // proxy, the instrumentation's reading is the proxy's.
  const trustsProxy = !/^\s*(false)?\s*$/i.test(env.TRUST_PROXY ?? '');
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ? undefined : 'medios-admin-api',
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
        redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
        ...(trustsProxy ? {} : { requestHook: (span: api.Span, request: unknown) => addressesFromSocket(span, request as IncomingMessage) }),
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
  // after the constructor, which installs its console logger when OTEL_LOG_LEVEL is set; before
  // start, which reads the exporter variables and reports what it cannot use
  api.diag.setLogger(new DiagnosticsLog(env.LOG_LEVEL?.trim().toLowerCase()), {
    logLevel: diagnosticsLevel(env.OTEL_LOG_LEVEL),
    suppressOverrideMessage: true,
  });
  sdk.start();
  return { api, shutdown: () => sdk.shutdown() };
}

/** The client's address from the socket, and the server's from the Host header, as the service reads them. */
function addressesFromSocket(span: api.Span, request: IncomingMessage): void {
  const client = request.socket?.remoteAddress;
  if (client) span.setAttribute(ATTR_CLIENT_ADDRESS, client);
  const host = request.headers.host;
  if (!host) return;
  try {
    const url = new URL(`http://${host}`);
    span.setAttribute(ATTR_SERVER_ADDRESS, url.hostname.replace(/^\[(.*)\]$/, '$1'));
    const port = url.port === '' ? request.socket?.localPort : Number(url.port);
    if (port) span.setAttribute(ATTR_SERVER_PORT, port);
  } catch {
    // a Host that is no host is refused with 400 before any route runs
  }
}
