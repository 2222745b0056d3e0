import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { DomainError, type FieldError, ValidationFailedError } from '../errors/domain-error.js';
import { EACH, fieldMessage, unknownFieldMessage } from './messages.js';

const IMMUTABLE = 'campo_inmutable';

/** Flattens nested class-validator errors into `{field: "a.b[0].c", code: <constraint>, message}`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    const all = Object.entries(e.constraints ?? {});
    // a rule of every item (`each: true`) names the items that break it; on a value that is no
    // list (missing, null, a string) the list's own rule (isArray) is the one to report
    const forItems = all.filter(([, message]) => message.startsWith(EACH));
    const failed = all.filter(([, message]) => !message.startsWith(EACH));
    const items =
      Array.isArray(e.value) || failed.length === 0 ? forItems.flatMap(([code, message]) => itemErrors(field, e.value, code, message)) : [];
    // a value of the wrong type (or none) breaks its type rule; its size or range is not measured
    const wrongType = failed.some(([code]) => TYPE_RULES.has(code));
    const own = failed
      .filter(([code]) => !(wrongType && MEASURE_RULES.has(code)))
      .map(([code, message]) => ({ field, code, message: fieldMessage(code, message) }));
    return [...own, ...items, ...toFieldErrors(e.children ?? [], field)];
  });
}

/** Type rules whose items can be told apart here, so each offending item is named by its path. */
const ITEM_TYPES: Readonly<Record<string, (item: unknown) => boolean>> = {
  isString: (item) => typeof item === 'string',
  isInt: (item) => Number.isInteger(item),
  isBoolean: (item) => typeof item === 'boolean',
};

/**
 * The errors of a rule applied to every item of `list`: one per offending item (`permisos[2]`)
 * when the rule is a type rule of ITEM_TYPES, else one for the list.
 */
function itemErrors(field: string, list: unknown, code: string, message: string): FieldError[] {
  const accepts = ITEM_TYPES[code];
  if (!accepts || !Array.isArray(list)) return [{ field, code, message: fieldMessage(code, message) }];
  // "each value in permisos must be a string" → "permisos[2] must be a string", then in Spanish
  const predicate = message.slice(EACH.length).replace(/^\S+/, '');
  const named = list.flatMap((item, i) =>
    accepts(item) ? [] : [{ field: `${field}[${i}]`, code, message: fieldMessage(code, `${field}[${i}]${predicate}`) }],
  );
  return named.length ? named : [{ field, code, message: fieldMessage(code, message) }];
}

/** Rules about a value's presence or type. */
const TYPE_RULES = new Set(['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject', 'nestedValidation']);
/** Rules that measure or match a value of the right type: not reported beside a broken type rule. */
const MEASURE_RULES = new Set([
  'maxLength',
  'minLength',
  'max',
  'min',
  'arrayMaxSize',
  'arrayMinSize',
  'maxBytes',
  'isPositive',
  'isNegative',
  'visibleText',
  'matches',
  'isEmail',
]);

function hasImmutableViolation(errors: ValidationError[]): string | undefined {
  for (const e of errors) {
    if (e.contexts?.[IMMUTABLE_CONSTRAINT]) return e.property;
    const nested = hasImmutableViolation(e.children ?? []);
    if (nested) return nested;
  }
  return undefined;
}

const IMMUTABLE_CONSTRAINT = 'immutableField';

/**
 * ValidationPipe that never converts primitive route arguments (`@Param('id') id: number` stays the
 * raw string): conversion is explicit (ParseIdPipe, @ToInt…), so nothing is coerced silently.
 */
class StrictValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const problem = unacceptableInput(value, MAX_INPUT_DEPTH, (metadata.metatype as OpaqueTextHolder | undefined)?.[OPAQUE_TEXT], metadata.type);
      if (problem) return Promise.reject(new ValidationFailedError([problem]));
    }
    // what ValidationPipe itself does with such an argument (it validates classes only), without
    // its async call and the list it builds on every call: a path id passes here on every request
    if (metadata.metatype === undefined || metadata.metatype === null || NOT_VALIDATED.has(metadata.metatype)) return Promise.resolve(value);
    return super.transform(value, metadata);
  }
}

const OPAQUE_TEXT = Symbol('opaqueText');
type OpaqueTextHolder = { [OPAQUE_TEXT]?: ReadonlySet<string | symbol> };

/**
 * A top-level string field holding a value only the service issues (a token, a cursor): it is
 * hashed, verified or decoded, never stored or sent to the database as it is, so a NUL or a lone
 * surrogate in it makes one more value that does not verify, answered as the field's own rules
 * say (the refresh's generic 401, a cursor ignored), not the 400 of `unacceptableInput`.
 */
export function OpaqueText(): PropertyDecorator {
  return (target, key) => {
    const holder = target.constructor as OpaqueTextHolder;
    const inherited = holder[OPAQUE_TEXT];
    if (!Object.prototype.hasOwnProperty.call(holder, OPAQUE_TEXT)) holder[OPAQUE_TEXT] = new Set(inherited);
    (holder[OPAQUE_TEXT] as Set<string | symbol>).add(key);
  };
}

/** The metatypes ValidationPipe.toValidate treats as primitive (never validated). */
const NOT_VALIDATED = new Set<unknown>([String, Boolean, Number, Array, Object, Buffer, Date]);

const MAX_INPUT_DEPTH = 32;
const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Input no rule of this API accepts and that would otherwise fail deep below the validation, as a
 * 500: nesting deeper than `maxDepth` (class-transformer recurses once per level and overflows the
 * stack), a NUL character (PostgreSQL text cannot hold one) or a lone UTF-16 surrogate (not
 * encodable as UTF-8 JSON: jsonb refuses it, validator's isEmail throws on it). Also a property
 * named like a member of every object (`toString`, `constructor`, `valueOf`…): no DTO declares
 * one, and class-validator's whitelist, which looks names up in a plain object, takes them for
 * declared and lets them through. Iterative, so any input is walked safely. Returns the first
 * offending field, or undefined. The characters of the top-level strings named in `opaque` are
 * left to their fields' own rules (`OpaqueText`).
 */
export function unacceptableInput(
  value: unknown,
  maxDepth: number,
  opaque?: ReadonlySet<string | symbol>,
  /** what the input is, named as the field of a problem of the whole input or of a property name */
  root: 'body' | 'query' = 'body',
): FieldError | undefined {
  const stack: Array<[unknown, string, number]> = [[value, '', 0]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL) || LONE_SURROGATE.test(v)) {
        return {
          field: path || root,
          code: 'unacceptableCharacters',
          message: `${path || 'el valor'} contiene caracteres no admitidos (NUL o UTF-16 inválido)`,
        };
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { field: path || root, code: 'tooDeep', message: `la entrada anida más de ${maxDepth} niveles` };
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      const childPath = Array.isArray(v) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (key.includes(NUL) || LONE_SURROGATE.test(key))
        return { field: path || root, code: 'unacceptableCharacters', message: 'un nombre de propiedad contiene caracteres no admitidos' };
      if (!Array.isArray(v) && key in Object.prototype)
        return { field: childPath, code: 'whitelistValidation', message: unknownFieldMessage(childPath) };
      if (depth === 0 && typeof child === 'string' && opaque?.has(key)) continue;
      stack.push([child, childPath, depth + 1]);
    }
  }
  return undefined;
}

/**
 * The one validation contract: whitelist + forbidNonWhitelisted (typos are 400), DTO instances,
 * and no implicit conversion (query DTOs convert explicitly with @Transform).
 */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // the value lets toFieldErrors name a list's offending items; the errors never leave exceptionFactory
    validationError: { target: false, value: true },
    stopAtFirstError: false,
    exceptionFactory: (errors: ValidationError[]) => {
      const immutable = hasImmutableViolation(errors);
      if (immutable) return immutableFieldError(immutable);
      return new ValidationFailedError(toFieldErrors(errors));
    },
  });
}

/**
 * Marks a property of an update body that the contract declares immutable: any value for it,
 * null included, is a 400 `campo_inmutable` (docs/api.md "Conventions").
 */
export function ImmutableField(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    const holder = target.constructor as ImmutableHolder;
    if (!Object.prototype.hasOwnProperty.call(holder, IMMUTABLE_FIELDS)) holder[IMMUTABLE_FIELDS] = new Set(holder[IMMUTABLE_FIELDS]);
    holder[IMMUTABLE_FIELDS]!.add(String(propertyName));
    registerDecorator({
      name: IMMUTABLE_CONSTRAINT,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} es inmutable`, ...options, context: { [IMMUTABLE]: true } },
      validator: { validate: (value: unknown) => value === undefined },
    });
  };
}

const IMMUTABLE_FIELDS = Symbol('immutableFields');
type ImmutableHolder = { [IMMUTABLE_FIELDS]?: Set<string> };

/**
 * The first field `body` carries (with any value, null included) that `dto` declares immutable:
 * for a check that runs on the raw body before the ValidationPipe, which must still answer
 * `campo_inmutable` first, as the pipe does.
 */
export function immutableFieldIn(dto: abstract new (...args: never[]) => unknown, body: object): string | undefined {
  for (const field of (dto as unknown as ImmutableHolder)[IMMUTABLE_FIELDS] ?? []) if (Object.hasOwn(body, field)) return field;
  return undefined;
}

/** 400 `campo_inmutable` naming the field. */
export function immutableFieldError(field: string): DomainError {
  return new DomainError(IMMUTABLE, `El campo ${field} no se puede modificar`, [
    { field, code: IMMUTABLE_CONSTRAINT, message: `${field} es inmutable` },
  ]);
}
