import { registerDecorator, type ValidationOptions } from 'class-validator';

/** The UTF-8 byte length of a string is at most `max` (bcrypt counts bytes, not characters). */
export function MaxBytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'maxBytes',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options: { message: `${String(propertyName)} must be at most ${max} bytes`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= max },
    });
  };
}
