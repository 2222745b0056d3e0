import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsMiddleware, ClsMiddlewareOptions, ClsModule, type ClsModuleOptions, type ClsService } from 'nestjs-cls';
import type { IncomingMessage } from 'node:http';
import { Clock } from './context/clock.js';
import { RequestContext, type RequestStore, requestStore } from './context/request-context.js';
import { ProblemFilter } from './errors/problem.filter.js';
import { createValidationPipe } from './validation/validation.js';
import { ETagInterceptor } from './versioning/etag.interceptor.js';
import { VersionedWrites } from './versioning/versioned-writes.js';

/** Fields the fastify onRequest hook copies onto the raw request (see app.factory.ts). */
export interface RawRequestContext extends IncomingMessage {
  correlationId?: string;
  clientIp?: string;
  /** the matched route's template (`/api/v1/users/:id`), when a route matched */
  routeUrl?: string;
  /**
   * the status answered below fastify (sendClientError) while the request was unfinished: 408 when
   * it was not received whole within REQUEST_TIMEOUT_MS, 400 when its body broke the HTTP framing
   * (a bad chunk, an unsupported Transfer-Encoding)
   */
  answeredBelow?: number;
}

/** How the request context (CLS) is opened for each request: what it records from the raw request. */
const REQUEST_CONTEXT_OPTIONS = {
  // no proxy providers here: resolving them costs a require() on every request
  resolveProxyProviders: false,
  setup: (cls: ClsService, req: RawRequestContext) => {
    const store = requestStore(cls) as RequestStore;
    store.correlationId = req.correlationId;
    store.ip = req.clientIp ?? req.socket?.remoteAddress ?? null;
    store.endpoint = req.routeUrl ?? req.url?.split('?')[0] ?? null;
    store.method = req.method ?? null;
    const ua = req.headers['user-agent'];
    store.userAgent = typeof ua === 'string' ? headerText(ua) : null;
  },
} satisfies Partial<ClsMiddlewareOptions>;

const NON_ASCII = /[^\p{ASCII}]/u;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as text: Node reads a header's bytes as Latin-1, one character each, and a
 * browser or client sends UTF-8 (`ñ` arrived as `Ã±`); bytes that are UTF-8 are read as such, any
 * others stay as Node read them.
 */
function headerText(value: string): string {
  if (!NON_ASCII.test(value)) return value;
  try {
    return UTF8.decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

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
 * ClsModule.forRoot without the global guard and interceptor it always registers. They act only
 * when mounted (`guard.mount`, `interceptor.mount`), and here the context opens in
 * requestContextHook instead; unmounted they are a guard that allows and an interceptor that passes
 * through — and that one interceptor put Nest's rxjs interceptor pipeline on every request.
 */
function clsModuleWithoutEnhancers(options: ClsModuleOptions): DynamicModule {
  if (options.guard?.mount || options.interceptor?.mount) throw new Error('clsModuleWithoutEnhancers: the CLS guard or interceptor is mounted');
  const module = ClsModule.forRoot(options);
  for (const imported of module.imports ?? []) {
    if (!imported || !('module' in imported) || !imported.providers) continue;
    imported.providers = imported.providers.filter(
      (provider) =>
        !(typeof provider === 'object' && 'provide' in provider && (provider.provide === APP_GUARD || provider.provide === APP_INTERCEPTOR)),
    );
  }
  return module;
}

/**
 * Cross-cutting pieces: request context in CLS, the per-request transaction, the one error model
 * and the one validation contract.
 */
@Global()
@Module({
  imports: [
    clsModuleWithoutEnhancers({
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
    // also a provider: createApp hands its tagRead to fastify as the versioned reads' hook
    ETagInterceptor,
  ],
  exports: [RequestContext, VersionedWrites, ETagInterceptor],
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
