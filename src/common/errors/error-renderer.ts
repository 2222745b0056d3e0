import { HttpException } from '@nestjs/common';
import { STATUS_CODES } from 'node:http';
import { DEFAULT_FIELD_ERROR_CODE, DomainError, type FieldError } from './domain-error.js';
import { codeForStatus } from './error-codes.js';
import { ellipsized, MAX_SHOWN_NAME } from '../validation/messages.js';

/** Routes whose errors use the fiscal contract `{error, message}` instead of problem details. */
export const FISCAL_ROUTE_PREFIX = '/api/v1/admin/fiscal';

/** Whether a path is one of the fiscal routes' (`/api/v1/admin/fiscal` or below it; not `/api/v1/admin/fiscalia`). */
export function isFiscalPath(path: string): boolean {
  return path.startsWith(FISCAL_ROUTE_PREFIX) && (path.length === FISCAL_ROUTE_PREFIX.length || path[FISCAL_ROUTE_PREFIX.length] === '/');
}

/**
 * At most this many field errors in an answer: enough to fix a form, and a body with thousands of
 * bad fields cannot make the service write a multi-megabyte answer.
 */
export const MAX_FIELD_ERRORS = 20;
/** At most this much of one field error's message (which may name a field the client made up). */
const MAX_FIELD_MESSAGE = 400;

/** Health probes keep the @nestjs/terminus body on 503. */
export const HEALTH_ROUTE_PREFIX = '/health/';

export interface RenderedError {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** true when the error is a fault of ours (5xx) and must be logged with its stack */
  fault: boolean;
}

interface RequestLike {
  url: string;
  id?: string;
  /** the route the request matched (fastify), when it matched one */
  routeOptions?: { url?: string };
}

/**
 * The path that decides an answer's shape: the route the request reached, however its URL spelled
 * it (`/api/v1/admin/%66iscal/…` reaches the fiscal routes); without one, the URL's path decoded,
 * as the router reads it: an absolute-form target (`GET http://host/api/…`) without its scheme and
 * host, and with a malformed %-escape (a 400) the escapes of ASCII characters still decoded one by
 * one, so the path's prefix is read as it was meant.
 */
function routePath(req: RequestLike, path: string): string {
  if (req.routeOptions?.url && req.routeOptions.url !== '*') return req.routeOptions.url;
  const origin = ABSOLUTE_FORM.exec(path);
  const local = origin ? path.slice(origin[0].length) || '/' : path;
  try {
    return decodeURIComponent(local);
  } catch {
    return local.replace(ASCII_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

const BEARER_CHALLENGE = 'Bearer realm="medios-admin-api"';
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;
const ASCII_ESCAPE = /%([0-7][0-9A-Fa-f])/g;

export interface RenderOptions {
  /**
   * Whether an error means the database cannot be reached, aborted the transaction to settle a
   * conflict, or cancelled a statement past its timeout (the engine's dialect decides:
   * `SqlDialect.isConnectionFailure`, `isTransientConflict`, `isTimedOut`); such an error is a 503 `servicio_no_disponible` with
   * `Retry-After`, not a 500, so clients and load balancers retry instead of reporting a bug.
   */
  isUnavailable?: (err: unknown) => boolean;
}

/**
 * The one error model of the service (docs/api.md "Errors"). Used by the Nest exception filter and by
 * fastify's own error paths (body parsing, bad URLs), so every error answer has the same shape.
 * Never puts a stack trace, SQL text or a secret in the body.
 */
export function renderError(err: unknown, req: RequestLike, options: RenderOptions = {}): RenderedError {
  const path = req.url.split('?')[0] ?? req.url;
  const route = routePath(req, path);
  if (err instanceof HttpException && route.startsWith(HEALTH_ROUTE_PREFIX) && err.getStatus() === 503) {
    // probes answer with the @nestjs/terminus body {status, info, error, details} (docs/api.md "Health")
    const body = err.getResponse();
    if (body && typeof body === 'object')
      return {
        status: 503,
        fault: false,
        headers: { ...UNAVAILABLE.headers },
        contentType: 'application/json; charset=utf-8',
        body: body as Record<string, unknown>,
      };
  }
  const { status, code, detail, errors, headers: classified } = classify(err, options);
  const fault = status >= 500 && !(err instanceof DomainError);
  // a request refused for want of a valid access token says how to authenticate (RFC 6750)
  const headers = code === 'no_autenticado' ? { ...classified, 'www-authenticate': BEARER_CHALLENGE } : classified;
  if (isFiscalPath(route)) {
    return {
      status,
      fault,
      headers,
      contentType: 'application/json; charset=utf-8',
      body: {
        error: code,
        message: errors?.length
          ? `${detail}: ${errors
              .slice(0, MAX_FIELD_ERRORS)
              .map((e) => `${ellipsized(e.field, MAX_SHOWN_NAME)}: ${ellipsized(e.message, MAX_FIELD_MESSAGE)}`)
              .join('; ')}`
          : detail,
      },
    };
  }
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    instance: safeInstance(path),
    code,
    correlationId: req.id ?? null,
  };
  if (errors?.length)
    body.errors = errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({
      field: ellipsized(e.field, MAX_SHOWN_NAME),
      code: e.code ?? DEFAULT_FIELD_ERROR_CODE,
      message: ellipsized(e.message, MAX_FIELD_MESSAGE),
    }));
  return { status, fault, headers, contentType: 'application/problem+json; charset=utf-8', body };
}

function safeInstance(path: string): string {
  return path.length > 512 ? `${path.slice(0, 512)}…` : path;
}

interface Classified {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  headers: Record<string, string>;
}

const UNAVAILABLE: Classified = {
  status: 503,
  code: 'servicio_no_disponible',
  detail: 'El servicio no está disponible en este momento',
  headers: { 'retry-after': '5' },
};

function classify(err: unknown, options: RenderOptions): Classified {
  if (err instanceof DomainError) {
    return { status: err.status, code: err.code, detail: err.message, errors: err.errors, headers: err.headers ?? {} };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    const code =
      typeof response === 'object' && response && typeof (response as { code?: unknown }).code === 'string'
        ? (response as { code: string }).code
        : codeForStatus(status);
    // Nest's Fastify adapter turns Fastify's own client errors (malformed JSON, body too large,
    // unsupported content type) into an HttpException carrying Fastify's English message; the
    // error it wraps says which one it was.
    const framework = fastifyClientError(err.cause);
    return { status, code, detail: framework ? describeFramework(framework, status) : describeHttp(status, err), headers: {} };
  }
  const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // fastify's own client errors: malformed JSON, bad content type, body too large, bad URL
    return { status: statusCode, code: codeForStatus(statusCode), detail: describeFramework(err, statusCode), headers: {} };
  }
  if (typeof statusCode === 'number' && statusCode === 503) return UNAVAILABLE;
  if (isUnavailable(err, options)) return UNAVAILABLE;
  return { status: 500, code: 'error_interno', detail: 'Error interno del servidor', headers: {} };
}

/** The error itself or the error it wraps (`cause`), a database connection failure. */
function isUnavailable(err: unknown, options: RenderOptions): boolean {
  if (!options.isUnavailable) return false;
  for (let e: unknown = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (options.isUnavailable(e)) return true;
  }
  return false;
}

function describeHttp(status: number, err: HttpException): string {
  switch (status) {
    case 401:
      return 'Se requiere un token de acceso válido';
    case 403:
      return 'No tiene permiso para esta operación';
    case 404:
      return 'El recurso no existe';
    default:
      return status >= 500 ? 'Error interno del servidor' : safeMessage(err.message, status);
  }
}

function fastifyClientError(err: unknown): Error | undefined {
  const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
  return err instanceof Error && err.name === 'FastifyError' && typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500
    ? err
    : undefined;
}

function describeFramework(err: unknown, status: number): string {
  const code = (err as { code?: string }).code ?? '';
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return 'El cuerpo de la solicitud no es JSON válido';
  if (code === 'FST_ERR_BAD_URL') return 'La URL de la solicitud no es válida';
  // the rest by status: a body over the limit is 413, another content type 415
  if (status === 404) return 'El recurso no existe';
  if (status === 413) return 'El cuerpo de la solicitud es demasiado grande';
  if (status === 415) return 'Tipo de contenido no soportado; use application/json';
  return 'La solicitud no es válida';
}

/** Library messages can echo input; keep them short and single-line. */
function safeMessage(message: string, status: number): string {
  const m = (message || STATUS_CODES[status] || 'Error').split('\n')[0] ?? '';
  return m.length > 200 ? `${m.slice(0, 200)}…` : m;
}
