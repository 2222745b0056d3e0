import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * One failed rule of a field. `code` names the rule: class-validator's constraint name (`isInt`,
 * `matches`, `whitelistValidation` for an unknown property…) or a service's own; left out, the
 * error renderer sends `invalid`, so every item on the wire is `{field, code, message}`.
 */
export interface FieldError {
  field: string;
  code?: string;
  message: string;
}

/** The code an item without its own carries on the wire. */
export const DEFAULT_FIELD_ERROR_CODE = 'invalid';

/**
 * A rule of the domain was broken. Thrown by services with a stable code from ERROR_CODES;
 * the global filter maps it to HTTP. `headers` lets a rule add e.g. `Retry-After`.
 */
export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = ERROR_CODES[code];
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string, id: string | number) {
    super('no_encontrado', `${what} ${id} no existe`);
  }
}

export class ValidationFailedError extends DomainError {
  constructor(errors: FieldError[], message = 'La solicitud no es válida') {
    super('validacion', message, errors);
  }
}

/**
 * A refusal that must leave a trace (a security event) although the request's transaction rolls
 * back, and that must not take a second pooled connection while the transaction holds one: the
 * error filter runs `trace` once the request's transaction has ended, before it answers.
 */
export class TracedRefusal extends DomainError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly trace: () => Promise<void>,
  ) {
    super(code, message);
    this.name = 'TracedRefusal';
  }
}
