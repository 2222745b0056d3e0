import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
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

/**
 * One fastify onResponse hook for both per-request signals: the duration histogram and the one
 * `info` line per request. The line carries method, route template, status, duration,
 * correlation id and actor id — never the path with its ids, a header, a token or a body — plus
 * the trace id when tracing is on (pino mixin). It goes through the application's root pino
 * logger (nestjs-pino's), with the level and redaction of LOG_LEVEL and logging.ts.
 */
export function registerRequestTelemetry(fastify: FastifyInstance, metrics: AppMetrics): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    metrics.httpDuration.observe(
      { http_request_method: request.method, http_route: route ?? UNMATCHED_ROUTE, http_response_status_code: status },
      ms / 1000,
    );
    const root = PinoLogger.root as Logger | undefined;
    if (root?.isLevelEnabled('info') && !(route && QUIET.test(route))) {
      requestLineLogger(root).info(
        {
          correlationId: request.id,
          method: request.method,
          route: route ?? null,
          status,
          durationMs: Math.round(ms * 100) / 100,
          actorId: (request as unknown as RequestWithActor).user?.userId ?? null,
        },
        'request completed',
      );
    }
    done();
  });
}
