import { describe, expect, it } from '@jest/globals';
import { unacceptableInput } from './validation.js';

describe('unacceptableInput (input refused before validation, so it never fails deeper as a 500)', () => {
  it('accepts ordinary JSON: text with accents and emoji, numbers, nulls, shallow nesting', () => {
    expect(unacceptableInput({ nombre: 'Ñandú 😀', n: 1, x: null, l: ['a', { b: 'c' }] }, 32)).toBeUndefined();
  });

  it('refuses a NUL character anywhere, naming the field', () => {
    expect(unacceptableInput({ a: { b: ['ok', 'x\u0000y'] } }, 32)).toMatchObject({ field: 'a.b[1]' });
  });

  it('refuses a lone UTF-16 surrogate (high or low) but not a surrogate pair', () => {
    expect(unacceptableInput({ nombre: '\udfff' }, 32)).toMatchObject({ field: 'nombre' });
    expect(unacceptableInput({ nombre: 'a\ud800' }, 32)).toMatchObject({ field: 'nombre' });
    expect(unacceptableInput({ nombre: '\ud83d\ude00' }, 32)).toBeUndefined();
  });

  it('refuses nesting deeper than the limit without recursing (100,000 levels)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unacceptableInput(deep, 32)).toMatchObject({ field: expect.any(String) });
    let ok: unknown = 1;
    for (let i = 0; i < 31; i++) ok = { a: ok };
    expect(unacceptableInput(ok, 32)).toBeUndefined();
  });

  it('refuses a property name with a NUL, naming the object that holds it, or the input: the body or the query string', () => {
    expect(unacceptableInput({ 'a\u0000': 1 }, 32)).toMatchObject({ field: 'body' });
    expect(unacceptableInput({ 'page\u0000': '2' }, 32, undefined, 'query')).toMatchObject({ field: 'query' });
    expect(unacceptableInput({ a: { 'b\u0000': 1 } }, 32)).toMatchObject({ field: 'a' });
  });

  it('refuses a property named like a member of every object, at any depth, as an unknown field', () => {
    for (const key of ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf']) {
      expect(unacceptableInput(JSON.parse(`{"codigo":"A","${key}":"x"}`), 32)).toEqual({
        field: key,
        code: 'whitelistValidation',
        message: `${key} no es un campo admitido`,
      });
    }
    expect(unacceptableInput({ a: { toString: 1 } }, 32)).toMatchObject({ field: 'a.toString', code: 'whitelistValidation' });
    expect(unacceptableInput({ list: ['toString', 'constructor'] }, 32)).toBeUndefined();
  });
});
