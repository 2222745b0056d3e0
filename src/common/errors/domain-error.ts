import { ERROR_CODES, type ErrorCode } from './error-codes.js';

export interface FieldError {
  field: string;
  message: string;
}

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
