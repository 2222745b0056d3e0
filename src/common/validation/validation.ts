import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { DomainError, type FieldError, ValidationFailedError } from '../errors/domain-error.js';

const IMMUTABLE = 'campo_inmutable';

/** Flattens nested class-validator errors into `{field: "a.b[0].c", message}`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...toFieldErrors(e.children ?? [], field)];
  });
}

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

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // class-transformer recurses once per level: a body nested thousands deep would overflow the
    // stack (a 500). No body of this API nests beyond a few levels.
    if (metadata.type === 'body' && nestedDeeperThan(value, MAX_BODY_DEPTH)) {
      throw new ValidationFailedError([{ field: 'body', message: `el cuerpo anida más de ${MAX_BODY_DEPTH} niveles` }]);
    }
    return super.transform(value, metadata);
  }
}

const MAX_BODY_DEPTH = 32;

/** Whether a parsed JSON value nests objects/arrays deeper than `max` (iterative: no recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v as Record<string, unknown>)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
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
    validationError: { target: false, value: false },
    stopAtFirstError: false,
    exceptionFactory: (errors: ValidationError[]) => {
      const immutable = hasImmutableViolation(errors);
      if (immutable) return new DomainError(IMMUTABLE, `El campo ${immutable} no se puede modificar`, [{ field: immutable, message: `${immutable} es inmutable` }]);
      return new ValidationFailedError(toFieldErrors(errors));
    },
  });
}

/**
 * Marks a property of an update body that the contract declares immutable: any value for it,
 * null included, is a 400 `campo_inmutable` (API.md Conventions).
 */
export function ImmutableField(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: IMMUTABLE_CONSTRAINT,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} es inmutable`, ...options, context: { [IMMUTABLE]: true } },
      validator: { validate: (value: unknown) => value === undefined },
    });
  };
}
