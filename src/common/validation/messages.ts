/**
 * Field messages in the answer's language. The service's own rules write their messages in
 * Spanish; class-validator's built-in decorators and the whitelist check write English defaults.
 * Rather than repeat a message on every decorator of every DTO, the defaults are rewritten here,
 * once, when the errors are flattened: each entry matches the library's default text for one
 * constraint (with its `each value in ` prefix when the rule applies to every item of a list) and
 * says the same in Spanish. A message a decorator sets itself never matches and is kept as it is.
 * `messages.spec.ts` checks every entry against the library's real output, so a change of wording
 * in class-validator fails a test instead of leaking English.
 */
type Rewrite = (subject: string, arg: string) => string;

const NOT_EMPTY = { pattern: /^(.+) should not be empty$/, say: (s: string) => `${s} no puede estar vacío` };
const ONE_OF = {
  pattern: /^(.+) must be one of the following values: (.*)$/,
  say: (s: string, v: string) => `${s} debe ser uno de estos valores: ${v}`,
};

const DEFAULTS: Readonly<Record<string, { pattern: RegExp; say: Rewrite }>> = {
  isString: { pattern: /^(.+) must be a string$/, say: (s) => `${s} debe ser un texto` },
  isInt: { pattern: /^(.+) must be an integer number$/, say: (s) => `${s} debe ser un número entero` },
  isNotEmpty: NOT_EMPTY,
  arrayNotEmpty: NOT_EMPTY,
  maxLength: {
    pattern: /^(.+) must be shorter than or equal to (\d+) characters$/,
    say: (s, n) => `${s} debe tener como máximo ${n} caracteres`,
  },
  minLength: { pattern: /^(.+) must be longer than or equal to (\d+) characters$/, say: (s, n) => `${s} debe tener al menos ${n} caracteres` },
  min: { pattern: /^(.+) must not be less than (-?[\d.]+)$/, say: (s, n) => `${s} no puede ser menor que ${n}` },
  max: { pattern: /^(.+) must not be greater than (-?[\d.]+)$/, say: (s, n) => `${s} no puede ser mayor que ${n}` },
  isBoolean: { pattern: /^(.+) must be a boolean value$/, say: (s) => `${s} debe ser true o false` },
  isArray: { pattern: /^(.+) must be an array$/, say: (s) => `${s} debe ser una lista` },
  arrayMaxSize: { pattern: /^(.+) must contain no more than (\d+) elements$/, say: (s, n) => `${s} admite como máximo ${n} elementos` },
  arrayMinSize: { pattern: /^(.+) must contain at least (\d+) elements$/, say: (s, n) => `${s} debe tener al menos ${n} elementos` },
  isIn: ONE_OF,
  isEnum: ONE_OF,
  isEmail: { pattern: /^(.+) must be an email$/, say: (s) => `${s} debe ser una dirección de correo electrónico` },
  // the library's text quotes the regular expression: the Spanish one does not
  matches: { pattern: /^(.+) must match .* regular expression$/, say: (s) => `${s} no tiene el formato esperado` },
  isDefined: { pattern: /^(.+) should not be null or undefined$/, say: (s) => `${s} es obligatorio` },
  isObject: { pattern: /^(.+) must be an object$/, say: (s) => `${s} debe ser un objeto` },
  nestedValidation: { pattern: /^nested property (.+) must be either object or array$/, say: (s) => `${s} debe ser un objeto o una lista` },
  whitelistValidation: { pattern: /^property (.*) should not exist$/, say: (s) => unknownFieldMessage(s) },
};

/** The prefix class-validator gives the default message of a rule applied to every item of a list. */
export const EACH = 'each value in ';

/** The message of a property an operation does not take (the whitelist's rule, here and in BodilessInterceptor). */
export function unknownFieldMessage(field: string): string {
  return field === '' ? 'un campo sin nombre no es admitido' : `${ellipsized(field, MAX_SHOWN_NAME)} no es un campo admitido`;
}

/** How much of a name the client made up an error shows: a megabyte of key is not echoed back. */
export const MAX_SHOWN_NAME = 200;

/** `text`, or its first `max` UTF-16 units and an ellipsis, never splitting a surrogate pair. */
export function ellipsized(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** The field errors of properties or query parameters an operation does not take. */
export function unknownFieldErrors(fields: readonly string[]): Array<{ field: string; code: 'whitelistValidation'; message: string }> {
  return fields.map((field) => ({ field, code: 'whitelistValidation', message: unknownFieldMessage(field) }));
}

/** The message of one failed constraint, in Spanish when it is one of class-validator's English defaults. */
export function fieldMessage(code: string, message: string): string {
  const rule = DEFAULTS[code];
  const match = rule?.pattern.exec(message);
  if (!rule || !match) return message;
  const subject = match[1] as string;
  return subject.startsWith(EACH) ? rule.say(`cada elemento de ${subject.slice(EACH.length)}`, match[2] ?? '') : rule.say(subject, match[2] ?? '');
}
