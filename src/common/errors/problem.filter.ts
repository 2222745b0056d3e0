import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger, Optional } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { TracedRefusal } from './domain-error.js';
import { type RenderOptions, renderError } from './error-renderer.js';
import { redactQuery } from '../logging/logging.js';

/** Global filter: every exception becomes the contract's error body (see renderError). */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private readonly options: RenderOptions;

  constructor(@Optional() @Inject(SQL_DIALECT) dialect?: SqlDialect) {
    // the engine's dialect tells a lost database or a transaction the engine aborted to settle a
    // conflict (503: send it again) from a fault of ours (500)
    this.options = dialect
      ? { isUnavailable: (err) => dialect.isConnectionFailure(err) || dialect.isTransientConflict(err) || dialect.isTimedOut(err) }
      : {};
  }

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // the request's transaction (if any) has ended by now: the trace neither rolls back with it nor
    // waits for a second connection while it holds one
    if (exception instanceof TracedRefusal) {
      await exception.trace().catch((err: unknown) => this.logger.error({ err, correlationId: request.id }, 'could not record the refusal'));
    }
    sendError(exception, request, reply, this.logger, this.options);
  }
}

export function sendError(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Pick<Logger, 'error'>,
  options: RenderOptions = {},
): void {
  const rendered = renderError(exception, request, options);
  if (rendered.fault) {
    logger.error({ err: exception, correlationId: request.id, method: request.method, url: redactQuery(request.url) }, 'request failed');
  }
  if (reply.sent) return;
  // an error is never to be cached, whatever the route would send on success (the key sets' public max-age)
  reply.status(rendered.status).header('content-type', rendered.contentType).header('cache-control', 'no-store');
  for (const [k, v] of Object.entries(rendered.headers)) reply.header(k, v);
  void reply.send(rendered.body);
}
