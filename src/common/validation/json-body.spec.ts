import { describe, expect, it } from '@jest/globals';
import { inexactNumber, jsonShapeProblem, MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_JSON_PROPERTIES } from './json-body.js';

const object = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const array = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => i));

describe('jsonShapeProblem (read from the text before parsing)', () => {
  it('accepts exactly the limits and refuses one more', () => {
    expect(jsonShapeProblem(object(MAX_JSON_PROPERTIES))).toBeUndefined();
    expect(jsonShapeProblem(object(MAX_JSON_PROPERTIES + 1))?.message).toContain('propiedades');
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH + 1))?.message).toContain('niveles');
    expect(jsonShapeProblem(array(MAX_JSON_ARRAY_ITEMS))).toBeUndefined();
    expect(jsonShapeProblem(array(MAX_JSON_ARRAY_ITEMS + 1))?.message).toContain('elementos');
  });

  it('counts properties at every depth together', () => {
    const inner = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`a${i}`, i]));
    expect(jsonShapeProblem(JSON.stringify({ x: inner, y: inner }))?.message).toContain('propiedades');
  });

  it('ignores colons, commas, brackets and escaped quotes inside strings', () => {
    const tricky = JSON.stringify({ s: `${':,[{'.repeat(5000)}\\"]}"`, t: '\\\\' });
    expect(jsonShapeProblem(tricky)).toBeUndefined();
  });

  it('counts the items of each array on its own level, not those of nested arrays', () => {
    const rows = JSON.stringify(Array.from({ length: 10 }, () => Array.from({ length: 900 }, () => 0)));
    expect(jsonShapeProblem(rows)).toBeUndefined();
  });

  it('refuses a property named twice in one object, however the name is written, naming it when it is a plain name', () => {
    expect(jsonShapeProblem('{"codigo":201,"porcentaje":"21","porcentaje":21}')).toEqual({
      field: 'porcentaje',
      code: 'duplicateKey',
      message: 'porcentaje aparece más de una vez en un mismo objeto',
    });
    expect(jsonShapeProblem('{"monto" : 1, "m\\u006fnto":\n5}')).toMatchObject({ field: 'monto', code: 'duplicateKey' });
    expect(jsonShapeProblem('{"a":{"x":1},"b":{"y":[{"z":1},{"z":2}],"q":{"q":"q"}}}')).toBeUndefined();
    expect(jsonShapeProblem('{"x":{"a":1,"a":2}}')).toMatchObject({ field: 'a', code: 'duplicateKey' });
    expect(jsonShapeProblem('{"a b":1,"a b":2}')).toMatchObject({ field: 'body', code: 'duplicateKey' });
    // names that appear as values, or in sibling objects, are not repeats
    expect(jsonShapeProblem('{"a":"a","b":["a","a"],"c":{"a":1}}')).toBeUndefined();
  });
});

describe('inexactNumber (a number parsing would change)', () => {
  it('refuses digits a double cannot hold, naming the field, not the number (the field may be a password)', () => {
    expect(inexactNumber('{"porcentaje":21.000000000000001}')).toEqual({
      field: 'porcentaje',
      code: 'exactNumber',
      message: 'porcentaje tiene más cifras de las que se pueden recibir con exactitud',
    });
    expect(inexactNumber('{"password":12345678901234567890}')?.message).not.toContain('1234');
    expect(inexactNumber('{"alicuota":99.999999999999999}')?.field).toBe('alicuota');
    expect(inexactNumber('{"monto":1.10000000000000001}')?.field).toBe('monto');
    expect(inexactNumber('{"id":9007199254740993}')?.field).toBe('id');
    expect(inexactNumber('{"x":1e999}')?.field).toBe('x');
    expect(inexactNumber('[1, 2.0000000000000001]')?.field).toBe('body');
  });

  it('accepts every number that arrives as written, however it is spelled', () => {
    for (const text of [
      '{"a":21,"b":21.10,"c":0.30000000000000004,"d":1e3,"e":1.5E-7,"f":-0,"g":9007199254740992,"h":123456789012345.6}',
      '{"a":100.0000,"b":2.1e1,"c":0.000000000000000000001}',
      JSON.stringify({ values: [Math.PI, Number.MAX_SAFE_INTEGER, 1 / 3, -2.5e-300] }),
      '{"digits in a string":"12345678901234567890"}',
      '{"not json',
    ]) {
      expect(inexactNumber(text)).toBeUndefined();
    }
  });
});
