import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { CREATED_LOCATION, type LocationOf } from './created.decorator.js';

/**
 * Sets the `Location` header of every route marked `@Created`, from the body its handler returns.
 * bindRouteInterceptors binds it innermost, so the header is set as soon as the handler answers,
 * inside the request's transaction, before the ETag of the answer.
 */
@Injectable()
export class LocationInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const location = this.reflector.get<LocationOf<unknown> | undefined>(CREATED_LOCATION, context.getHandler());
    if (!location) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      map((body: unknown) => {
        reply.header('location', location(body));
        return body;
      }),
    );
  }
}
