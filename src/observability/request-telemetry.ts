import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AppMetrics } from './metrics.js';

/** Route label of requests no route matched (their path may carry anything: it is never a label). */
export const UNMATCHED_ROUTE = 'unmatched';
/** The probes are polled every few seconds: measured, but they leave no log line. */
const QUIET = /^\/health\//;

interface RequestWithActor {
  user?: { userId?: number };
  raw: FastifyRequest['raw'] & { log?: Logger };
}

/**
 * One fastify onResponse hook for both per-request signals: the duration histogram and the one
 * `info` line per request. The line carries method, route template, status, duration,
 * correlation id (bound to the request's pino logger) and actor id — never the path with its
 * ids, a header, a token or a body — plus the trace id when tracing is on (pino mixin).
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
    const log = (request as unknown as RequestWithActor).raw.log;
    if (log?.isLevelEnabled('info') && !(route && QUIET.test(route))) {
      log.info(
        {
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
