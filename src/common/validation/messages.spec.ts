import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validate,
  ValidateNested,
} from 'class-validator';
import { fieldMessage } from './messages.js';
import { toFieldErrors } from './validation.js';

class Inner {
  @IsInt()
  n!: unknown;
}

enum Color {
  Rojo = 'rojo',
}

/** One property per constraint whose default message is rewritten, each given a value that breaks it. */
class Everything {
  @IsString() texto: unknown = 1;
  @IsInt() entero: unknown = 1.5;
  @IsNotEmpty() lleno: unknown = '';
  @ArrayNotEmpty() lista: unknown = [];
  @MaxLength(5) corto: unknown = 'abcdefg';
  @MinLength(3) largo: unknown = 'a';
  @Min(1) desde: unknown = 0;
  @Max(10) hasta: unknown = 11;
  @IsBoolean() flag: unknown = 'maybe';
  @IsArray() arreglo: unknown = 'x';
  @ArrayMaxSize(2) pocos: unknown = [1, 2, 3];
  @ArrayMinSize(2) varios: unknown = [1];
  @IsIn(['a', 'b']) opcion: unknown = 'c';
  @IsEnum(Color) color: unknown = 'azul';
  @IsEmail() email: unknown = 'no';
  @Matches(/^[A-Z]+$/) codigo: unknown = 'abc';
  @IsDefined() requerido: unknown = undefined;
  @IsObject() objeto: unknown = 'x';
  @IsString({ each: true }) permisos: unknown = ['a', 2];
  @MaxLength(2, { each: true }) cortos: unknown = ['ab', 'abc'];
  @ValidateNested() @Type(() => Inner) anidado: unknown = 'x';
  @IsString({ message: 'mensaje propio' }) propio: unknown = 1;
}

describe('fieldMessage: class-validator defaults in Spanish', () => {
  it('rewrites the default message of every rule it knows, as class-validator writes it today', async () => {
    const dto = Object.assign(new Everything(), { sobrante: 1 });
    const errors = toFieldErrors(await validate(dto, { whitelist: true, forbidNonWhitelisted: true }));
    const byField = Object.fromEntries(errors.map((e) => [`${e.field}:${e.code}`, e.message]));
    expect(byField).toEqual({
      'texto:isString': 'texto debe ser un texto',
      'entero:isInt': 'entero debe ser un número entero',
      'lleno:isNotEmpty': 'lleno no puede estar vacío',
      'lista:arrayNotEmpty': 'lista no puede estar vacío',
      'corto:maxLength': 'corto debe tener como máximo 5 caracteres',
      'largo:minLength': 'largo debe tener al menos 3 caracteres',
      'desde:min': 'desde no puede ser menor que 1',
      'hasta:max': 'hasta no puede ser mayor que 10',
      'flag:isBoolean': 'flag debe ser true o false',
      'arreglo:isArray': 'arreglo debe ser una lista',
      'pocos:arrayMaxSize': 'pocos admite como máximo 2 elementos',
      'varios:arrayMinSize': 'varios debe tener al menos 2 elementos',
      'opcion:isIn': 'opcion debe ser uno de estos valores: a, b',
      'color:isEnum': 'color debe ser uno de estos valores: rojo',
      'email:isEmail': 'email debe ser una dirección de correo electrónico',
      'codigo:matches': 'codigo no tiene el formato esperado',
      'requerido:isDefined': 'requerido es obligatorio',
      'objeto:isObject': 'objeto debe ser un objeto',
      'permisos[1]:isString': 'permisos[1] debe ser un texto',
      'cortos:maxLength': 'cada elemento de cortos debe tener como máximo 2 caracteres',
      'anidado:nestedValidation': 'anidado debe ser un objeto o una lista',
      'propio:isString': 'mensaje propio',
      'sobrante:whitelistValidation': 'sobrante no es un campo admitido',
    });
  });

  it('keeps any other message as it is', () => {
    expect(fieldMessage('isString', 'nombre debe ser un texto')).toBe('nombre debe ser un texto');
    expect(fieldMessage('isUuid', 'id must be a UUID')).toBe('id must be a UUID');
    expect(fieldMessage('maxLength', 'codigo debe tener de 1 a 20 caracteres de [A-Z0-9_]')).toBe(
      'codigo debe tener de 1 a 20 caracteres de [A-Z0-9_]',
    );
  });
});
