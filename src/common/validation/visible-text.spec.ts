import { describe, expect, it } from '@jest/globals';
import { ValidationFailedError } from '../errors/domain-error.js';
import { OptionalText, RequiredText } from './fields.js';
import { createValidationPipe } from './validation.js';

class NamedDto {
  @RequiredText(20)
  nombre!: string;

  @OptionalText(50)
  descripcion?: string;
}

/** Names and descriptions as the validation pipe hands them to the services. */
describe('RequiredText and OptionalText', () => {
  const pipe = createValidationPipe();
  const accept = (body: object) => pipe.transform(body, { type: 'body', metatype: NamedDto }) as Promise<NamedDto>;
  const refusal = async (body: object) => {
    const err = (await accept(body).catch((e: unknown) => e)) as ValidationFailedError;
    expect(err).toBeInstanceOf(ValidationFailedError);
    return err.errors!.map((e) => `${e.field}:${e.code}`);
  };

  it('stores text in its composed form: a letter and its combining accent are the one letter', async () => {
    const decomposed = 'N\u0303andu\u0301';
    const dto = await accept({ nombre: `  ${decomposed} `, descripcion: `Cafe\u0301` });
    expect(dto.nombre).toBe('Ñandú');
    expect(dto.nombre).toHaveLength(5);
    expect(dto.descripcion).toBe('Café');
  });

  it('refuses a name with a control or invisible character: zero-width space, bidi mark, BEL, tab, line separator, Hangul filler, blank braille, any default-ignorable, an unassigned or private-use code point, U+FFFD, a leading combining mark', async () => {
    for (const nombre of [
      '\u200bMotos',
      '\u200b',
      'Mo\u200dtos',
      'Motos\u200e',
      '\u0007',
      'A\u0001\u0002',
      'Mo\ttos',
      'Mo\ntos',
      'Mo\u0085tos',
      'ab\u2028c',
      'ab\u2029c',
      '\u3164',
      '\u2800',
      'Motos\u115F',
      'Motos\u034f',
      'Mo\u17b4tos',
      'Motos\ufe0f',
      'Motos\u00ad',
      'Motos\u{e0041}',
      '\u0301',
      '\u0301Motos',
      'Motos\ufffe',
      'Mo\u0378tos',
      'Motos\ue000',
      'Motos\u{fffd0}',
      'Mot\ufffd\ufffds',
    ]) {
      expect(await refusal({ nombre })).toEqual(['nombre:visibleText']);
    }
    const err = (await accept({ nombre: '\u200bMotos' }).catch((e: unknown) => e)) as ValidationFailedError;
    expect(err.errors![0]!.message).toBe('nombre no puede contener caracteres de control ni invisibles');
  });

  it('lets a description hold line breaks and tabs, not other control characters', async () => {
    expect((await accept({ nombre: 'Motos', descripcion: 'Línea 1\r\nLínea 2\tfin' })).descripcion).toBe('Línea 1\r\nLínea 2\tfin');
    expect(await refusal({ nombre: 'Motos', descripcion: 'sonido\u0007' })).toEqual(['descripcion:visibleText']);
  });

  it('measures nothing of a value of the wrong type', async () => {
    expect(await refusal({ nombre: 12 })).toEqual(['nombre:isString']);
  });
});
