import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { RawRequestContext } from '../common/common.module.js';
import type { AppMetrics } from './metrics.js';

/** Route label of requests no route matched (their path may carry anything: it is never a label). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The probes are polled every few seconds: measured, but they leave no log line. */
const QUIET = /^\/health\//;

const lineLoggers = new WeakMap<Logger, Logger>();

/**
 * The logger of the request line: the root logger (level, destination, trace mixin) without its
 * redaction. Every field of the line is built here from values that cannot hold a secret, and
 * pino's redaction (wildcard paths, applied to every line) was most of the line's CPU
 * (BENCHMARKS.md, "Request log line").
 */
export function requestLineLogger(root: Logger): Logger {
  let line = lineLoggers.get(root);
  if (!line) {
    line = root.child({}, { redact: { paths: [] } });
    lineLoggers.set(root, line);
  }
  return line;
}

interface RequestWithActor {
  user?: { userId?: number };
}

/** The status recorded for a request whose client went away before its answer (nginx's convention: no answer was sent). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * The two per-request signals: the duration histogram and the one `info` line per request. The
 * line carries method, route template, status, duration, correlation id and actor id — never the
 * path with its ids, a header, a token or a body — plus the trace id when tracing is on (pino
 * mixin). It goes through the application's root pino logger (nestjs-pino's), with the level of
 * LOG_LEVEL.
 */
function recordRequest(metrics: AppMetrics, request: FastifyRequest, status: number, ms: number, message: string): void {
  const actorId = (request as unknown as RequestWithActor).user?.userId ?? null;
  record(metrics, request.method, request.routeOptions.url ?? null, status, ms, request.id, actorId, message);
}

/** OpenTelemetry's method label for a request whose method is unknown. */
const OTHER_METHOD = '_OTHER';

/**
 * The methods the histogram names; any other (Node's parser knows some thirty: PROPFIND, MKCOL,
 * SOURCE…) is `_OTHER`, so a client sending them all cannot multiply its series.
 */
const LABELLED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

// positional rather than one object: it runs on every request
function record(
  metrics: AppMetrics,
  method: string | null,
  route: string | null,
  status: number,
  ms: number,
  correlationId: string,
  actorId: number | null,
  message: string,
): void {
  metrics.httpDuration.observe(
    {
      http_request_method: method !== null && LABELLED_METHODS.has(method) ? method : OTHER_METHOD,
      http_route: route ?? UNMATCHED_ROUTE,
      http_response_status_code: status,
    },
    ms / 1000,
  );
  const root = PinoLogger.root as Logger | undefined;
  if (root?.isLevelEnabled('info') && !(route && QUIET.test(route))) {
    requestLineLogger(root).info({ correlationId, method, route, status, durationMs: Math.round(ms * 100) / 100, actorId }, message);
  }
}

const REFUSED_MESSAGES: Readonly<Record<number, string>> = {
  408: 'request timed out',
  417: 'request refused: an expectation other than 100-continue',
  431: 'request refused: headers too large',
};

/**
 * Records what Node's HTTP parser refused before fastify had a request (a garbage request line,
 * headers over the size limit or never finished, a conflicting Content-Length and
 * Transfer-Encoding), answered by sendClientError: its line has no method, route or actor, and its
 * sample the labels `_OTHER` and `unmatched`. `waitedMs` is what is known of its duration: the
 * headers' time limit for a 408, none for the others, answered as soon as they were read.
 */
export function recordRefusedRequest(metrics: AppMetrics, status: number, correlationId: string, waitedMs: number): void {
  const message = REFUSED_MESSAGES[status] ?? 'request refused: malformed HTTP request';
  record(metrics, null, null, status, waitedMs, correlationId, null, message);
}

/**
 * fastify's onResponse hook: records an answered request. A request whose connection closes
 * before its answer is written never reaches it: watchAbandoned records that one.
 */
export function registerRequestTelemetry(fastify: FastifyInstance, metrics: AppMetrics): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    recordRequest(metrics, request, reply.statusCode, reply.elapsedTime, 'request completed');
    done();
  });
}

/**
 * Called by createApp's first onRequest hook: when the response closes unfinished — its connection
 * ended before the answer was written — records the request once: a client that gave up (status
 * 499, with the time it waited, so the slowest requests stay in the latency histogram), one whose
 * body never arrived (408, answered by sendClientError) or one whose body broke the HTTP framing
 * (400, answered by sendClientError). The work of an abandoned request may
 * still finish after it (a change commits, with its audit events under the same correlation id);
 * its answer then goes nowhere and fastify's onResponse never runs. Watched on the response, not
 * with fastify's onRequestAbort hook, which misses a client that hangs up after sending its whole
 * body.
 */
export function watchAbandoned(metrics: AppMetrics, request: FastifyRequest, reply: FastifyReply): void {
  const started = performance.now();
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    const waited = performance.now() - started;
    const answered = (request.raw as RawRequestContext).answeredBelow;
    if (answered === 408) recordRequest(metrics, request, 408, waited, 'request timed out');
    else if (answered !== undefined) recordRequest(metrics, request, answered, waited, 'request refused: malformed HTTP framing');
    else recordRequest(metrics, request, CLIENT_CLOSED_REQUEST, waited, 'request aborted by the client');
  });
}

/** Records an answer fastify gives before routing (a bad %-escape in the path), which runs none of the hooks above; answered at once. */
export function recordFrameworkError(metrics: AppMetrics, request: FastifyRequest, reply: FastifyReply): void {
  recordRequest(metrics, request, reply.statusCode, 0, 'request completed');
}
