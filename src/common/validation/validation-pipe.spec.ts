import { describe, expect, it } from '@jest/globals';
import { ArrayMaxSize, IsArray, IsEmail, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min } from 'class-validator';
import { MaxBytes } from './max-bytes.js';
import { IsCodigo } from './fields.js';
import { ValidationFailedError } from '../errors/domain-error.js';
import { createValidationPipe } from './validation.js';

class NombreDto {
  @IsString()
  nombre!: string;
}

class PatternsDto {
  @IsCodigo()
  codigo!: string;

  @IsEmail()
  @IsString()
  email!: string;
}

class RulesDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  username!: string;

  @IsString()
  @MaxBytes(72)
  password!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  pageSize!: number;

  @IsArray()
  @ArrayMaxSize(10)
  granted!: string[];
}

class CodesDto {
  @IsArray()
  @ArrayMaxSize(3)
  @IsString({ each: true })
  permisos!: string[];
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

  it('reports a missing or mistyped value by its type, not by the pattern or format it was never matched against', async () => {
    const codes = async (body: object) =>
      ((await pipe.transform(body, { type: 'body', metatype: PatternsDto }).catch((err: unknown) => err)) as ValidationFailedError).errors!.map(
        (e) => `${e.field}:${e.code}`,
      );
    expect((await codes({ codigo: 123, email: 5 })).sort()).toEqual(['codigo:isString', 'email:isString']);
    expect((await codes({})).sort()).toEqual(['codigo:isString', 'email:isString']);
    expect((await codes({ codigo: 'abc', email: 'no' })).sort()).toEqual(['codigo:matches', 'email:isEmail']);
  });

  it('reports the rule a value broke: a missing or mistyped value its type, not the sizes it was never measured against', async () => {
    const refusal = (await pipe
      .transform({ password: 12, pageSize: 'abc', granted: 'x' }, { type: 'body', metatype: RulesDto })
      .catch((err: unknown) => err)) as ValidationFailedError;
    expect(refusal).toBeInstanceOf(ValidationFailedError);
    expect(refusal.errors!.map((e) => `${e.field}:${e.code}`).sort()).toEqual([
      'granted:isArray',
      'pageSize:isInt',
      'password:isString',
      'username:isNotEmpty',
      'username:isString',
    ]);
    const tooLong = (await pipe
      .transform({ username: 'u'.repeat(51), password: 'ñ'.repeat(37), pageSize: 0, granted: [] }, { type: 'body', metatype: RulesDto })
      .catch((err: unknown) => err)) as ValidationFailedError;
    expect(tooLong.errors).toEqual([
      { field: 'username', code: 'maxLength', message: 'username debe tener como máximo 50 caracteres' },
      { field: 'password', code: 'maxBytes', message: 'password debe ocupar como máximo 72 bytes en UTF-8' },
      { field: 'pageSize', code: 'min', message: 'pageSize no puede ser menor que 1' },
    ]);
  });

  it('names each item of a list that breaks its type rule by its path, and a value that is no list by the list rule alone', async () => {
    const errorsOf = async (body: object) =>
      ((await pipe.transform(body, { type: 'body', metatype: CodesDto }).catch((err: unknown) => err)) as ValidationFailedError).errors;
    expect(await errorsOf({ permisos: ['a', 5, true] })).toEqual([
      { field: 'permisos[1]', code: 'isString', message: 'permisos[1] debe ser un texto' },
      { field: 'permisos[2]', code: 'isString', message: 'permisos[2] debe ser un texto' },
    ]);
    // the list's own size is still measured: its items were of the wrong type, not the list
    expect((await errorsOf({ permisos: ['a', 'b', 'c', 4] }))!.map((e) => `${e.field}:${e.code}`)).toEqual([
      'permisos:arrayMaxSize',
      'permisos[3]:isString',
    ]);
    for (const body of [{}, { permisos: null }, { permisos: 'a' }]) {
      expect(await errorsOf(body)).toEqual([{ field: 'permisos', code: 'isArray', message: 'permisos debe ser una lista' }]);
    }
  });

  it('validates a DTO class: unknown fields and wrong types are 400, a valid body becomes an instance', async () => {
    await expect(pipe.transform({ nombre: 1 }, { type: 'body', metatype: NombreDto })).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(pipe.transform({ nombre: 'x', extra: true }, { type: 'body', metatype: NombreDto })).rejects.toBeInstanceOf(ValidationFailedError);
    const dto = await pipe.transform({ nombre: 'x' }, { type: 'body', metatype: NombreDto });
    expect(dto).toBeInstanceOf(NombreDto);
    expect(dto).toEqual({ nombre: 'x' });
  });
});
