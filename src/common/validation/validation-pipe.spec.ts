import { describe, expect, it } from '@jest/globals';
import { IsString } from 'class-validator';
import { ValidationFailedError } from '../errors/domain-error.js';
import { createValidationPipe } from './validation.js';

class NombreDto {
  @IsString()
  nombre!: string;
}

/** The application's one validation pipe: what it passes through, converts and refuses. */
describe('createValidationPipe', () => {
  const pipe = createValidationPipe();

  it('passes a primitive or untyped argument through as it came: no implicit conversion', async () => {
    for (const metatype of [String, Number, Boolean, Array, Object, Date, undefined]) {
      expect(await pipe.transform('12', { type: 'param', data: 'id', metatype })).toBe('12');
    }
    const raw = { any: 'thing' };
    expect(await pipe.transform(raw, { type: 'custom', metatype: Object })).toBe(raw);
  });

  it('still refuses NUL characters in a body or query typed as a plain object', async () => {
    await expect(pipe.transform({ nombre: 'a\u0000b' }, { type: 'body', metatype: Object })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(pipe.transform({ q: 'a\u0000' }, { type: 'query', metatype: undefined })).rejects.toBeInstanceOf(ValidationFailedError);
  });

  it('validates a DTO class: unknown fields and wrong types are 400, a valid body becomes an instance', async () => {
    await expect(pipe.transform({ nombre: 1 }, { type: 'body', metatype: NombreDto })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(pipe.transform({ nombre: 'x', extra: true }, { type: 'body', metatype: NombreDto })).rejects.toBeInstanceOf(ValidationFailedError);
    const dto = await pipe.transform({ nombre: 'x' }, { type: 'body', metatype: NombreDto });
    expect(dto).toBeInstanceOf(NombreDto);
    expect(dto).toEqual({ nombre: 'x' });
  });
});
