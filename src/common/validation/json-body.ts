import type { FastifyInstance } from 'fastify';
import { type FieldError, ValidationFailedError } from '../errors/domain-error.js';

/** Bodies of the sign-in routes (`/api/v1/auth/*`): small and reachable without a token. */
export const AUTH_BODY_LIMIT_BYTES = 16 * 1024;
/** Every other body. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const MAX_JSON_PROPERTIES = 1000;
export const MAX_JSON_DEPTH = 32;
export const MAX_JSON_ARRAY_ITEMS = 1000;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COLON = 58;
const COMMA = 44;

/**
 * The first shape limit a JSON text exceeds — more than MAX_JSON_PROPERTIES properties in all,
 * nesting deeper than MAX_JSON_DEPTH, an array of more than MAX_JSON_ARRAY_ITEMS items — or
 * undefined. Read from the text before it is parsed: building an object of 70,000 keys costs
 * JSON.parse about 100 ms of the event loop, validating it seconds, while this scan jumps from
 * quote to quote and stops at the first excess (about 1 ms for such a body, at most a few ms for
 * 1 MiB). Exact for well-formed JSON; malformed text is refused by the parser afterwards anyway.
 */
export function jsonShapeProblem(text: string): FieldError | undefined {
  let properties = 0;
  // per open container, innermost last: -1 for an object, the commas seen so far for an array
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length >= MAX_JSON_DEPTH) return { field: 'body', code: 'maxDepth', message: `el cuerpo anida más de ${MAX_JSON_DEPTH} niveles` };
      open.push(c === OPEN_ARRAY ? 0 : -1);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    } else if (c === COLON) {
      if (++properties > MAX_JSON_PROPERTIES)
        return { field: 'body', code: 'maxProperties', message: `el cuerpo tiene más de ${MAX_JSON_PROPERTIES} propiedades` };
    } else if (c === COMMA) {
      const last = open.length - 1;
      // n commas separate n + 1 items
      if (last >= 0 && open[last]! >= 0 && ++open[last]! >= MAX_JSON_ARRAY_ITEMS) {
        return { field: 'body', code: 'maxItems', message: `una lista del cuerpo tiene más de ${MAX_JSON_ARRAY_ITEMS} elementos` };
      }
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `start` (the text's end when none does). */
function closingQuote(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/**
 * Request bodies are bounded before anything parses or validates them: 16 KiB on
 * `/api/v1/auth/*`, 1 MiB elsewhere (413 `payload_demasiado_grande`, from fastify's own limit,
 * which also refuses a too-large `Content-Length` before reading), then the shape limits of
 * jsonShapeProblem (400 `validacion`), then fastify's JSON parser (prototype poisoning refused);
 * an empty body is no body.
 * Call before the routes are registered (the sign-in limit is set per route) and again, through
 * `replaceJsonParser`, once Nest has installed its own JSON parser.
 */
export function limitAuthBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api/v1/auth/')) route.bodyLimit = Math.min(route.bodyLimit ?? AUTH_BODY_LIMIT_BYTES, AUTH_BODY_LIMIT_BYTES);
  });
}

export function replaceJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  if (fastify.hasContentTypeParser('application/json')) fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // fetch wrappers send `Content-Type: application/json` on bodiless requests too (deactivate,
    // logout, DELETE): an empty body with that type is no body, not malformed JSON
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    const problem = jsonShapeProblem(text);
    if (problem) {
      done(new ValidationFailedError([problem], 'El cuerpo de la solicitud excede los límites de forma'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
