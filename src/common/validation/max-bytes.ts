import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * The UTF-8 byte length of a string is at most `max` (bcrypt counts bytes, not characters). Only a
 * string is measured: another type is the field's type rule's error (IsString), not this one's.
 */
export function MaxBytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'maxBytes',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options: { message: `${String(propertyName)} debe ocupar como máximo ${max} bytes en UTF-8`, ...options },
      validator: { validate: (value: unknown) => typeof value !== 'string' || Buffer.byteLength(value, 'utf8') <= max },
    });
  };
}
