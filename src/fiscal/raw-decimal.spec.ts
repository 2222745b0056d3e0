import { describe, expect, it } from '@jest/globals';
import { ALICUOTA, PORCENTAJE, rawDecimalError } from './raw-decimal.js';

describe('rawDecimalError', () => {
  it.each([0, 21, 10.5, 21.1, 99.99, 100, 0.01])('accepts the porcentaje %p', (value) => {
    expect(rawDecimalError('porcentaje', value, PORCENTAJE)).toBeUndefined();
  });

  it('accepts the value JSON.parse gives for 21.10 (trailing zero is not a decimal place)', () => {
    expect(rawDecimalError('porcentaje', JSON.parse('21.10'), PORCENTAJE)).toBeUndefined();
  });

  it.each([
    ['a numeric string', '21'],
    ['a boolean', true],
    ['null', null],
    ['a missing value', undefined],
    ['an object', { value: 21 }],
    ['Infinity (1e999 parsed)', JSON.parse('1e999')],
    ['NaN', Number.NaN],
    ['three decimals', 21.001],
    ['a tiny fraction', 1e-7],
    ['a negative number', -0.01],
    ['more than 100', 100.01],
  ])('rejects %s as porcentaje', (_label, value) => {
    expect(rawDecimalError('porcentaje', value, PORCENTAJE)).toMatch(/^porcentaje /);
  });

  it('accepts every two-decimal value from 0.00 to 100.00 as JSON.parse gives it', () => {
    const rejected: string[] = [];
    for (let cents = 0; cents <= 10_000; cents++) {
      const text = (cents / 100).toFixed(2);
      if (rawDecimalError('porcentaje', JSON.parse(text), PORCENTAJE) !== undefined) rejected.push(text);
    }
    expect(rejected).toEqual([]);
  });

  it('allows four decimals in an alicuota and rejects five', () => {
    expect(rawDecimalError('alicuota', 3.1234, ALICUOTA)).toBeUndefined();
    expect(rawDecimalError('alicuota', 3.12345, ALICUOTA)).toMatch(/demasiados decimales/);
  });
});
