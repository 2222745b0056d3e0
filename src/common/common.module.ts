import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsMiddleware, ClsMiddlewareOptions, ClsModule, type ClsService } from 'nestjs-cls';
import type { IncomingMessage } from 'node:http';
import { Clock } from './context/clock.js';
import { RequestContext, type RequestStore } from './context/request-context.js';
import { ProblemFilter } from './errors/problem.filter.js';
import { createValidationPipe } from './validation/validation.js';
import { VersionedWrites } from './versioning/versioned-writes.js';

/** Fields the fastify onRequest hook copies onto the raw request (see app.factory.ts). */
export interface RawRequestContext extends IncomingMessage {
  correlationId?: string;
  clientIp?: string;
  /** the matched route's template (`/api/v1/users/:id`), when a route matched */
  routeUrl?: string;
}

/** How the request context (CLS) is opened for each request: what it records from the raw request. */
const REQUEST_CONTEXT_OPTIONS = {
  // no proxy providers here: resolving them costs a require() on every request
  resolveProxyProviders: false,
  setup: (cls: ClsService, req: RawRequestContext) => {
    const store = cls as unknown as { set<K extends keyof RequestStore>(k: K, v: RequestStore[K]): void };
    store.set('correlationId', req.correlationId);
    store.set('ip', req.clientIp ?? req.socket?.remoteAddress ?? null);
    store.set('endpoint', req.routeUrl ?? req.url?.split('?')[0] ?? null);
    store.set('method', req.method ?? null);
    const ua = req.headers['user-agent'];
    store.set('userAgent', typeof ua === 'string' ? ua : null);
  },
} satisfies Partial<ClsMiddlewareOptions>;

/**
 * The fastify onRequest hook that opens the request context: nestjs-cls's own middleware (the same
 * store, plugin hooks — the transactional plugin's — and context propagation as when Nest mounts
 * it), run from a hook. Registered after the hook that copies the correlation id, IP and route
 * onto the raw request.
 */
export function requestContextHook(): (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void {
  const middleware = new ClsMiddleware({ ...new ClsMiddlewareOptions(), ...REQUEST_CONTEXT_OPTIONS });
  return (request, reply, done) => void middleware.use(request.raw, reply.raw, done);
}

/**
 * Cross-cutting pieces: request context in CLS, the per-request transaction, the one error model
 * and the one validation contract.
 */
@Global()
@Module({
  imports: [
    ClsModule.forRoot({
      global: true,
      // mounted by app.factory.ts as a fastify onRequest hook (requestContextHook), not as Nest
      // middleware: Nest middleware on fastify needs @fastify/middie, whose own hook and URL
      // handling cost more per request than the context itself
      middleware: { ...REQUEST_CONTEXT_OPTIONS, mount: false },
      plugins: [
        new ClsPluginTransactional({
          imports: [TypeOrmModule],
          adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
          enableTransactionProxy: false,
        }),
      ],
    }),
  ],
  providers: [
    RequestContext,
    { provide: APP_FILTER, useClass: ProblemFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    VersionedWrites,
  ],
  exports: [RequestContext, VersionedWrites],
})
export class CommonModule {
  /** `clock` replaces the system clock (tests cross day boundaries with a FixedClock). */
  static forRoot(options: { clock?: Clock } = {}): DynamicModule {
    return {
      module: CommonModule,
      providers: [{ provide: Clock, useValue: options.clock ?? new Clock() }],
      exports: [Clock],
    };
  }
}
