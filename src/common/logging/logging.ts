import { createRequire } from 'node:module';
import pino from 'pino';
import { Logger, type Params, PinoLogger } from 'nestjs-pino';
import type { AppConfig } from '../config/index.js';
import { ClsServiceManager } from 'nestjs-cls';
import { type RequestStore, requestStore } from '../context/request-context.js';
import { traceLogFields, tracingApi } from '../../observability/tracing.js';

/** Paths pino removes from every log line: credentials never reach the logs. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'password',
  'newPassword',
  'currentPassword',
  'temporaryPassword',
  'accessToken',
  'refreshToken',
  'token',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.temporaryPassword',
  '*.accessToken',
  '*.refreshToken',
  '*.token',
  '*.authorization',
];

/**
 * Structured JSON logs (pino) carrying the correlation id of each request, and its trace id when
 * tracing is on. The one line per request is written by the request telemetry hook
 * (observability/request-telemetry.ts), which knows the route template and the actor; pino-http
 * only builds the root logger.
 */
/**
 * pino-pretty is a development dependency: the image installs none, and a transport it cannot load
 * would stop the process at its first line. Without it LOG_PRETTY=true leaves the JSON lines.
 */
function prettyPrinterInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

export function pinoOptions(config: AppConfig, operatorCommand = false): Params {
  // stdout for the server; stderr for an operator command, whose stdout is its result
  const destination = operatorCommand ? 2 : 1;
  const options = {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    autoLogging: false,
    mixin: tracingApi() ? () => ({ ...requestLogFields(), ...traceLogFields() }) : requestLogFields,
    serializers: {
      req: (req: { id?: string; method?: string; url?: string; remoteAddress?: string }) => ({
        method: req.method,
        url: redactQuery(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      err: errorForLog,
    },
    transport: config.logPretty && prettyPrinterInstalled() ? { target: 'pino-pretty', options: { singleLine: true, destination } } : undefined,
  };
  return {
    // No per-request middleware: nestjs-pino's (a child logger and a context of its own for every
    // request, through @fastify/middie) cost more than the request's own work on the hot paths. A
    // line written during a request gets its correlation id from the request context instead
    // (requestLogFields), so every logger of the application stays the root one.
    forRoutes: [],
    pinoHttp: options.transport || destination === 1 ? options : [options, pino.destination({ dest: destination, sync: true })],
  };
}

/**
 * The logger to hand to NestFactory, for what Nest writes before the application's own logger is
 * in place: its start lines, and the error that ends a start that fails (a database that cannot be
 * reached, a bad key). Given to NestFactory, they are the same pino lines as every other;
 * without it Nest flushes them to its console logger, as coloured text. The root pino logger is one
 * per process (nestjs-pino), so this is the logger the application's module uses too.
 */
export function startLogger(params: Params): Logger {
  return new Logger(new PinoLogger(params), params);
}

/** pino mixin: the correlation id of the request a line is written in, from the request context (CLS). */
export function requestLogFields(): { correlationId?: string } {
  const correlationId = requestStore(ClsServiceManager.getClsService<RequestStore>())?.correlationId;
  return correlationId ? { correlationId } : {};
}

/** What a logged error may not carry, at any depth: the values bound to a failed statement (TypeORM's `parameters`) and the database's `detail` ("Failing row contains (…)" quotes the whole row). */
const VALUES_OF_ROWS = new Set(['parameters', 'detail']);

/**
 * pino's error serializer (message, type, stack, code, the driver's error and its cause), without
 * the values a failed statement was given: a user insert that timed out logged the user's bcrypt
 * hash and e-mail with its parameters. The statement's text, the constraint, table and column
 * stay: they tell an operator what failed without what was stored.
 */
export function errorForLog(err: unknown): unknown {
  const strip = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) return value.map((item) => strip(item, depth + 1));
    return Object.fromEntries(Object.entries(value).flatMap(([key, child]) => (VALUES_OF_ROWS.has(key) ? [] : [[key, strip(child, depth + 1)]])));
  };
  return strip(err instanceof Error ? pino.stdSerializers.err(err) : err, 0);
}

/**
 * Query parameters whose values are never logged or traced: a client may put a credential there,
 * although no operation reads one. The names the service gives secrets in bodies, beside the
 * usual ones of URLs.
 */
export const SECRET_QUERY_PARAMS = [
  'token',
  'access_token',
  'refresh_token',
  'password',
  'accessToken',
  'refreshToken',
  'newPassword',
  'currentPassword',
  'temporaryPassword',
] as const;
const SECRET_QUERY_NAMES: ReadonlySet<string> = new Set(SECRET_QUERY_PARAMS.map((name) => name.toLowerCase()));

/** A query parameter's name as the query parser reads it (`+` a space, %-escapes decoded). */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * The URL with the values of secret-bearing query parameters replaced, for every log line that
 * names a URL. Names are compared decoded and in any case: `%70assword` is the `password` the
 * service reads.
 */
export function redactQuery<T extends string | undefined>(url: T): T {
  const start = url ? url.indexOf('?') : -1;
  if (!url || start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq >= 0 && SECRET_QUERY_NAMES.has(decodedName(pair.slice(0, eq)).toLowerCase()) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    });
  return `${url.slice(0, start + 1)}${pairs.join('&')}` as T;
}
