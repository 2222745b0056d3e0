import type { FastifyInstance } from 'fastify';
import { DomainError, type FieldError, ValidationFailedError } from '../errors/domain-error.js';

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
const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;

/**
 * The first shape limit a JSON text exceeds — more than MAX_JSON_PROPERTIES properties in all,
 * nesting deeper than MAX_JSON_DEPTH, an array of more than MAX_JSON_ARRAY_ITEMS items — or a
 * property named twice in one object, or undefined. Read from the text before it is parsed:
 * building an object of 70,000 keys costs JSON.parse about 100 ms of the event loop, validating it
 * seconds, while this scan jumps from quote to quote and stops at the first excess (about 1 ms for
 * such a body, at most a few ms for 1 MiB). A repeated name is refused because the parser would
 * keep only its last value: `{"porcentaje":"21","porcentaje":21}` passed the checks of the raw
 * text on one value and stored the other. Exact for well-formed JSON; malformed text is refused by
 * the parser afterwards anyway.
 */
export function jsonShapeProblem(text: string): FieldError | undefined {
  let properties = 0;
  // per open container, innermost last: -1 for an object, the commas seen so far for an array
  const open: number[] = [];
  // the property names seen in each open object (made on its first name)
  const names: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const top = open.length - 1;
      if (top >= 0 && open[top] === -1 && nextToken(text, end + 1) === COLON) {
        const name = propertyName(text, i, end);
        const seen = (names[top] ??= new Set());
        if (seen.has(name)) {
          const field = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'body';
          return { field, code: 'duplicateKey', message: `${field === 'body' ? 'una propiedad' : field} aparece más de una vez en un mismo objeto` };
        }
        seen.add(name);
      }
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length >= MAX_JSON_DEPTH) return { field: 'body', code: 'maxDepth', message: `el cuerpo anida más de ${MAX_JSON_DEPTH} niveles` };
      open.push(c === OPEN_ARRAY ? 0 : -1);
      names.push(undefined);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
      names.pop();
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

/** The first character after `from` that is not JSON white space (NaN at the end). */
function nextToken(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); c === SPACE || c === TAB || c === LF || c === CR; c = text.charCodeAt(++i));
  return text.charCodeAt(i);
}

/** The name a property's quoted text stands for: `"a"` and `"\u0061"` are one name. */
function propertyName(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return raw; // malformed: the parser refuses it afterwards
  }
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

/**
 * The first number of a JSON text that parsing would change: one with more digits than a double
 * holds (`21.000000000000001` would arrive as 21, `9007199254740993` as …992, `1e999` as Infinity),
 * so that no rule ever validates — and nothing ever stores — a value other than the one sent.
 * Undefined when every number arrives as written. A number of at most 15 significant digits
 * always does: only a text with a longer run of digits, or an exponent, is parsed to look (its
 * source text, through JSON.parse's reviver); a text that is not JSON yields nothing here.
 */
export function inexactNumber(text: string): FieldError | undefined {
  if (!MAYBE_INEXACT.test(text)) return undefined;
  let found: FieldError | undefined;
  try {
    JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
      const source = context?.source;
      if (!found && typeof value === 'number' && source !== undefined && canonicalNumber(source) !== canonicalNumber(String(value))) {
        const field = key === '' || /^\d+$/.test(key) ? 'body' : key;
        // the value is not repeated: the field may be a password sent as a number
        found = { field, code: 'exactNumber', message: `${field} tiene más cifras de las que se pueden recibir con exactitud` };
      }
      return value;
    });
  } catch {
    return undefined; // malformed: the parser refuses it afterwards
  }
  return found;
}

/** 16 digits in a row (a decimal point allowed among them), or an exponent. */
const MAYBE_INEXACT = /\d(?:\.?\d){15}|\d[eE]/;

/** A decimal numeral as `<sign><digits without leading or trailing zeros>e<exponent>`; the text itself if it is not one. */
function canonicalNumber(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  const fraction = m[3] ?? '';
  let digits = `${m[2]}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  let exponent = Number(m[4] ?? 0) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return `${m[1]}${digits}e${exponent}`;
}

/** JSON is UTF-8: another charset named in the Content-Type is an unsupported type, not a body to guess at. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON body the parser refused (malformed, not UTF-8, beyond the shape limits, a number it cannot
 * take exactly), kept on the request in place of the body instead of answered at once: the order of
 * checks is 401, 403, then 400, so the refusal is raised by AccessGuard once the caller may use the
 * route (throwIfRefused). An anonymous caller learns nothing about a body it may not send, and a
 * caller without the permission leaves its `permission.denied` event. A body over the size limit
 * (413) and one of another type or charset (415) are refused before parsing, as before.
 */
export class RefusedBody {
  constructor(readonly error: Error) {}
}

/** Raises the parser's refusal of the request's body, if it refused it. */
export function throwIfRefused(body: unknown): void {
  if (body instanceof RefusedBody) throw body.error;
}

export function replaceJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  if (fastify.hasContentTypeParser('application/json')) fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (request, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      done(new DomainError('tipo_de_contenido_no_soportado', 'El cuerpo JSON se envía en UTF-8: charset no soportado'), undefined);
      return;
    }
    // the service decodes no content coding: a gzip body was read as bytes and refused as invalid
    // UTF-8, a br body labelled as such was read as plain JSON. 415, as for another media type
    const coding = request.headers['content-encoding']?.trim().toLowerCase();
    if (coding && coding !== 'identity') {
      done(new DomainError('tipo_de_contenido_no_soportado', 'El cuerpo se envía sin codificar: Content-Encoding no soportado'), undefined);
      return;
    }
    let text: string;
    try {
      // invalid UTF-8 is refused, never stored as U+FFFD
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      done(
        null,
        new RefusedBody(
          new ValidationFailedError(
            [{ field: 'body', code: 'utf8', message: 'el cuerpo no es UTF-8 válido' }],
            'El cuerpo de la solicitud no es UTF-8 válido',
          ),
        ),
      );
      return;
    }
    // fetch wrappers send `Content-Type: application/json` on bodiless requests too (deactivate,
    // logout, DELETE): an empty body with that type is no body, not malformed JSON
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    const problem = jsonShapeProblem(text) ?? inexactNumber(text);
    if (problem) {
      const message =
        problem.code === 'exactNumber'
          ? 'Un número del cuerpo no se puede recibir con exactitud'
          : problem.code === 'duplicateKey'
            ? 'Una propiedad del cuerpo aparece más de una vez'
            : 'El cuerpo de la solicitud excede los límites de forma';
      done(null, new RefusedBody(new ValidationFailedError([problem], message)));
      return;
    }
    // Fastify's default JSON parser is synchronous and answers through `done`; its declared type is
    // the union of callback and promise parsers, so there is no promise to wait for here.
    void parseJson(request, text, (err: Error | null, value?: unknown) => (err ? done(null, new RefusedBody(err)) : done(null, value)));
  });
}
