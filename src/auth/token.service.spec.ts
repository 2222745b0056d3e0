import { describe, expect, it } from '@jest/globals';
import { userIdFromSub } from './token.service.js';

describe('userIdFromSub', () => {
  it.each(['1', '42', '2147483647'])('accepts the positive decimal string %s', (sub) => {
    expect(userIdFromSub(sub)).toBe(Number(sub));
  });

  it.each<[string, unknown]>([
    ['a JSON number', 42],
    ['zero', '0'],
    ['a negative number', '-1'],
    ['a leading zero', '042'],
    ['a decimal', '1.5'],
    ['an exponent', '1e3'],
    ['spaces', ' 1'],
    ['letters', 'abc'],
    ['an empty string', ''],
    ['beyond a 32-bit int', '2147483648'],
    ['null', null],
    ['undefined', undefined],
  ])('rejects %s', (_case, sub) => {
    expect(userIdFromSub(sub)).toBeUndefined();
  });
});
