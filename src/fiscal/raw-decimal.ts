import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import type { Observable } from 'rxjs';
import { type FieldError, ValidationFailedError } from '../common/errors/domain-error.js';
import { immutableFieldError, immutableFieldIn } from '../common/validation/validation.js';

/** A rate of the fiscal tables: a JSON number in [0, max] with at most `decimals` decimal places. */
export interface DecimalRule {
  max: number;
  decimals: number;
}

export const PORCENTAJE: DecimalRule = { max: 100, decimals: 2 };
export const ALICUOTA: DecimalRule = { max: 100, decimals: 4 };

/**
 * Why `value`, exactly as JSON.parse produced it from the request body, is not an acceptable
 * rate; undefined when it is. No coercion of any kind: a string ("21"), a boolean, null or a
 * missing value is rejected, and so is a non-finite number (`1e999` parses to Infinity).
 */
export function rawDecimalError(field: string, value: unknown, rule: DecimalRule): string | undefined {
  const expected = `${field} debe ser un número JSON entre 0 y ${rule.max} con hasta ${rule.decimals} decimales`;
  if (value === undefined) return `${field} es obligatorio; ${expected}`;
  if (typeof value !== 'number') return `${expected} (se recibió ${value === null ? 'null' : typeof value})`;
  if (!Number.isFinite(value)) return `${expected} (se recibió un número no finito)`;
  if (value < 0 || value > rule.max) return `${expected} (fuera de rango)`;
  // the nearest `decimals`-place decimal reads back as the same double only when the value has
  // no further decimal places (21.1 and 21.10 pass at 2 places; 21.001 does not)
  if (Number(value.toFixed(rule.decimals)) !== value) return `${expected} (demasiados decimales)`;
  return undefined;
}

/**
 * Checks the rate fields on the raw parsed JSON body (`request.body`), after the access guard
 * and before the ValidationPipe binds the body to its DTO ("validated from the raw
 * request body before binding"). Any failure is 400 `validacion`.
 */
@Injectable()
export class RawDecimalBodyInterceptor implements NestInterceptor {
  constructor(
    private readonly fields: Readonly<Record<string, DecimalRule>>,
    private readonly dto?: BodyDto,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ValidationFailedError([{ field: 'body', message: 'El cuerpo debe ser un objeto JSON' }]);
    }
    // an immutable field is 400 campo_inmutable whatever else the body carries, as the
    // ValidationPipe answers it after this check
    const immutable = this.dto && immutableFieldIn(this.dto, body);
    if (immutable) throw immutableFieldError(immutable);
    const errors: FieldError[] = [];
    for (const [field, rule] of Object.entries(this.fields)) {
      const message = rawDecimalError(field, (body as Record<string, unknown>)[field], rule);
      if (message) errors.push({ field, message });
    }
    if (errors.length) throw new ValidationFailedError(errors);
    return next.handle();
  }
}

type BodyDto = abstract new (...args: never[]) => unknown;

/** Route decorator: validate these rate fields on the raw body before binding; `dto`, the body's class, names its immutable fields. */
export const RawDecimalBody = (fields: Record<string, DecimalRule>, dto?: BodyDto) => UseInterceptors(new RawDecimalBodyInterceptor(fields, dto));

/**
 * The same rule on the bound DTO property, so the DTO is complete on its own (and whitelists the
 * property); the interceptor has already checked the raw value by then.
 */
export function IsRawDecimal(rule: DecimalRule, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    const field = String(propertyName);
    registerDecorator({
      name: 'isRawDecimal',
      target: target.constructor,
      propertyName: field,
      constraints: [rule],
      options,
      validator: {
        validate: (value: unknown) => rawDecimalError(field, value, rule) === undefined,
        defaultMessage: (args) => rawDecimalError(field, args?.value, rule) ?? `${field} no es válido`,
      },
    });
  };
}
