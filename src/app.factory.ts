import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { type RawRequestContext, requestContextHook } from './common/common.module.js';
import { correlationIdFrom } from './common/context/request-context.js';
import { securityHeaders } from './common/context/security-headers.js';
import { pinoOptions, startLogger } from './common/logging/logging.js';
import { answerConnect, answerExpectationFailed, IN_FLIGHT, sendClientError, type SocketWithRequest } from './common/errors/client-error.js';
import { DomainError } from './common/errors/domain-error.js';
import { sendError } from './common/errors/problem.filter.js';
import { setupSwagger } from './common/swagger/swagger.js';
import { ETagInterceptor } from './common/versioning/etag.interceptor.js';
import { BODY_LIMIT_BYTES, limitAuthBodies, replaceJsonParser } from './common/validation/json-body.js';
import { AppMetrics } from './observability/metrics.js';
import { recordFrameworkError, recordRefusedRequest, registerRequestTelemetry, watchAbandoned } from './observability/request-telemetry.js';

/** Answers of the API carry tokens, temporary passwords and user data: never kept by a browser or proxy cache. */
const API_PREFIX = '/api/v1';
const NO_STORE = 'no-store';

/** Probe answers report the state of this instant: a cached one would hide an outage from a probe behind a proxy. */
const HEALTH_PREFIX = '/health/';

/**
 * Whether an answer may omit `Cache-Control: no-store`: only one from a route outside the API and
 * the probes (Swagger UI, the published keys). Decided on the route the request matched, not on the
 * URL as sent, which may spell the prefix with %-escapes (`/%61pi/v1/...` reaches the same route);
 * a request that matched no route (a 404) or only the CORS preflight route (`*`) gets no-store.
 */
function mayBeCached(routeUrl: string | undefined): boolean {
  return routeUrl !== undefined && routeUrl !== '*' && !routeUrl.startsWith(API_PREFIX) && !routeUrl.startsWith(HEALTH_PREFIX);
}

/** Request headers a request may carry once: a second one would be read differently by the service (the first wins) and by a proxy in front of it. */
const SINGLE_HEADERS: ReadonlySet<string> = new Set(['host', 'authorization', 'content-type']);
/**
 * RFC 3986's host (a name, an IPv4 address, or a bracketed IP literal: IPv6 with a zone id as RFC
 * 6874 writes it, or IPvFuture) and an optional port, at most 65535; empty is allowed (RFC 9112 §3.2). A name in
 * another script arrives in its ASCII form (punycode), as browsers send it.
 */
const HOST_VALUE =
  /^(?:\[(?:[0-9A-Fa-f:.]+(?:%25[A-Za-z0-9\-._~%]+)?|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::(?:[0-9]{0,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$/;

/**
 * Why the request's header fields break RFC 9112 §3.2 (and RFC 9110 §5.3 for the other single
 * fields), or undefined: an HTTP/1.1 request without Host (HTTP/1.0 needs none), Host,
 * Authorization or Content-Type sent twice, or a Host that is no host. Node's server, which would
 * refuse a missing Host with a bare 400, lets it through (`requireHostHeader: false`), and keeps
 * only the first of the repeated ones.
 */
function headerFault(raw: IncomingMessage): string | undefined {
  if (raw.headers.host === undefined) {
    return raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1 ? 'Una solicitud HTTP/1.1 debe llevar el encabezado Host' : undefined;
  }
  const names = raw.rawHeaders;
  let seen = '';
  for (let i = 0; i < names.length; i += 2) {
    const length = names[i]!.length;
    // only names as long as host, content-type or authorization are lowered and compared
    if (length !== 4 && length !== 12 && length !== 13) continue;
    const name = names[i]!.toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.includes(`|${name}|`)) return `El encabezado ${names[i]} no puede repetirse`;
    seen += `|${name}|`;
  }
  return validHost(raw.headers.host) ? undefined : 'El encabezado Host no es válido';
}

/** HOST_VALUE, and a bracketed literal that is not IPvFuture is an IPv6 address (`[zz]` is none). */
function validHost(host: string): boolean {
  if (!HOST_VALUE.test(host)) return false;
  if (host[0] !== '[' || host[1] === 'v') return true;
  const literal = host.slice(1, host.indexOf(']'));
  const zone = literal.indexOf('%25');
  return isIPv6(zone === -1 ? literal : literal.slice(0, zone));
}

/**
 * Whether the request-target is malformed: a `#` (a fragment is never sent, RFC 9112 §3.2; the
 * router read what followed it as the query), or a query string holding a `%` escape that is not
 * one (`%zz`) or bytes that are no UTF-8 (`%ff`, a lone surrogate's `%ED%A0%80`): the router's
 * parser replaces them silently, so a value that is not what the client meant would be used; the
 * same escapes in the path are refused before routing (FST_ERR_BAD_URL), and these get the same 400.
 */
function malformedTarget(url: string | undefined): boolean {
  if (url === undefined) return false;
  if (url.includes('#')) return true;
  const start = url.indexOf('?');
  if (start < 0 || url.indexOf('%', start) < 0) return false;
  try {
    decodeURIComponent(url.slice(start + 1));
    return false;
  } catch {
    return true;
  }
}

/**
 * Nest's Fastify adapter, which knows when the application starts closing: from then on the
 * service answers new requests with its own 503 `servicio_no_disponible` (createApp's first hook)
 * instead of the adapter's, whose body is not the service's error model.
 */
class ServiceFastifyAdapter extends FastifyAdapter {
  closing = false;

  override beforeClose(): void {
    this.closing = true;
    super.beforeClose();
  }
}

/**
 * Builds the HTTP application (Nest on Fastify) without listening: main.ts listens on it, the
 * tests drive it with `app.inject`. Everything an answer carries — the correlation id, the error
 * model, security headers — is set up here so both see the same service.
 */
export async function createApp(options: Omit<AppModuleOptions, 'metrics'> & { metrics?: AppMetrics }): Promise<NestFastifyApplication> {
  const metrics = options.metrics ?? new AppMetrics();
  const fallbackLogger = new NestLogger('Http');
  const security = securityHeaders();
  const cors = corsOptions(options.config.corsOrigins);
  const adapter = new ServiceFastifyAdapter({
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => correlationIdFrom(req.headers['x-correlation-id']),
    requestIdHeader: false,
    trustProxy: options.config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    // a request not received whole in time is 408 (sendClientError) and its connection closed:
    // fastify's default (none) let a client that never finished its body hold a connection for good.
    // Node's server must be created with it: set afterwards (as fastify's own option alone does), it
    // bounds only the headers, never a body
    requestTimeout: options.config.requestTimeoutMs,
    http: {
      requestTimeout: options.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, options.config.requestTimeoutMs / 2),
      // an HTTP/1.1 request without Host reaches fastify, which answers it 400 in the problem shape
      // (headerFault): Node's own refusal was a bare 400 without the service's headers, log line or sample
      requireHostHeader: false,
    },
    // a path parameter of any length reaches its route's validation (400 after 401, or 404): the
    // router's own limit answered 414 before authentication, an answer the contract does not have.
    // Node's 16 KiB limit on the request head (431) bounds it first
    routerOptions: { maxParamLength: 16_384 },
    // the service's own 503 while the application closes (ServiceFastifyAdapter), not Nest's
    return503OnClosing: false,
    // no Nest middleware: the request context opens in a plain onRequest hook (requestContextHook)
    skipMiddie: true,
    // errors fastify answers before Nest sees the request (bad %-escapes, over-long params…)
    frameworkErrors: (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
      reply.headers(security);
      reply.header('x-correlation-id', req.id);
      reply.header('cache-control', NO_STORE);
      // the CORS plugin's hook never runs for these: a console on a listed origin reads the error too
      reply.headers(corsHeadersOf(cors, req.headers.origin));
      sendError(error, req, reply, fallbackLogger);
      // none of the request hooks run for these: their line and their sample are written here
      recordFrameworkError(metrics, req, reply);
    },
    // what Node's HTTP parser refuses before there is a request (a garbage request line, headers
    // over the size limit): the contract's problem document with a correlation id, not Node's text
    clientErrorHandler: function (this: FastifyInstance, error: Error & { code?: string }, socket) {
      // a 408 before the headers ended waited at least Node's limit on them
      const waited = (status: number) => (status === 408 ? this.server.headersTimeout : 0);
      sendClientError(error, socket, security, (status, id) => recordRefusedRequest(metrics, status, id, waited(status)));
    },
  });
  limitAuthBodies(adapter.getInstance());

  // Every answer, errors included, carries the correlation id and helmet's security headers. Set
  // through the adapter's own first hook, which runs ahead of the hooks Nest adds for CORS and for
  // shutting down: a CORS preflight, answered in those, carries them too.
  adapter.setOnRequestHook((request, reply, done) => {
    const raw = request.raw as RawRequestContext;
    const routeUrl = request.routeOptions.url;
    raw.correlationId = request.id;
    raw.clientIp = request.ip;
    raw.routeUrl = routeUrl;
    (raw.socket as SocketWithRequest)[IN_FLIGHT] = raw;
    watchAbandoned(metrics, request, reply);
    reply.headers(security);
    reply.header('x-correlation-id', request.id);
    if (!mayBeCached(routeUrl)) reply.header('cache-control', NO_STORE);
    const fault = headerFault(request.raw);
    if (fault !== undefined) {
      done(new DomainError('validacion', fault));
      return;
    }
    if (malformedTarget(request.raw.url)) {
      done(new DomainError('validacion', 'La URL de la solicitud no es válida'));
      return;
    }
    if (adapter.closing) {
      // a request on a kept-alive connection after shutdown began: refused, and the connection closed
      reply.header('connection', 'close');
      done(new DomainError('servicio_no_disponible', 'El servicio se está deteniendo; reintente la solicitud', undefined, { 'retry-after': '1' }));
      return;
    }
    done();
  });
  // after the hook above: the context records the correlation id, IP and route it copied
  adapter.getInstance().addHook('onRequest', requestContextHook());
  registerRequestTelemetry(adapter.getInstance(), metrics);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ ...options, metrics }), adapter, {
    logger: startLogger(pinoOptions(options.config, options.operatorCommand)),
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  // an Expect other than 100-continue: the service's 417, not Node's bare one
  fastify.server.on('checkExpectation', (request, response) =>
    answerExpectationFailed(request, response, security, (status, id) => recordRefusedRequest(metrics, status, id, 0)),
  );
  // CONNECT: the service's 404, not a connection closed without an answer
  fastify.server.on('connect', (request: IncomingMessage, socket: Socket) =>
    answerConnect(request, socket, security, (status, id) => recordRefusedRequest(metrics, status, id, 0)),
  );
  // the ETag of versioned reads, set as their answer is serialized (before app.init registers the routes)
  const etags = app.get(ETagInterceptor);
  fastify.addHook('preSerialization', (request, reply, payload, done) => etags.tagRead(request, reply, payload, done));

  // no origin listed, no CORS at all: the plugin's hook would only run to answer nothing
  if (options.config.corsOrigins.length > 0) app.enableCors(cors);
  setupSwagger(app);
  await app.init();
  // JSON only. Nest also registers a form parser, whose keys would turn a whole form-encoded body —
  // secrets included — into property names echoed in the validation errors, and fastify its own
  // text/plain parser, whose string body was then validated as if it were JSON. Without them such
  // bodies are 415 like any other non-JSON type.
  for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
    if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
  }
  // Nest's JSON parser, replaced by one that accepts an empty body and bounds the body's shape
  // before parsing it
  replaceJsonParser(fastify);
  await fastify.ready();
  return app;
}

/**
 * CORS for the admin web frontend (docs/frontend.md): a listed origin may use every method the
 * API has and send the headers a console needs (If-Match for lost-update protection), and reads
 * the headers it must see (ETag, Location of a create, the correlation id, Retry-After). An origin
 * that is not listed — or any origin while CORS_ORIGINS is empty — gets no CORS header at all,
 * preflights included.
 */
export function corsOptions(origins: readonly string[]) {
  const allowed = new Set(origins);
  const allows = (origin: string | undefined): origin is string => origin !== undefined && allowed.has(origin);
  return {
    allows,
    origin: (origin: string | undefined, done: (err: Error | null, allow: string | false) => void) => done(null, allows(origin) ? origin : false),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'X-Correlation-Id'],
    exposedHeaders: ['ETag', 'Location', 'X-Correlation-Id', 'Retry-After'],
    credentials: false,
    // an OPTIONS request without Access-Control-Request-Method is not a preflight: answered like one
    // instead of with the plugin's plain-text English 400
    strictPreflight: false,
    optionsSuccessStatus: 204,
    maxAge: 600,
  };
}

/** The CORS headers of an actual (not preflight) answer to `origin`, as the plugin sets them; none for an origin not listed. */
function corsHeadersOf(cors: ReturnType<typeof corsOptions>, origin: string | undefined): Record<string, string> {
  if (!cors.allows(origin)) return {};
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': cors.exposedHeaders.join(', ') };
}
