import { describe, expect, it } from '@jest/globals';
import { MetadataSanitizer } from './metadata-sanitizer.js';

/**
 * Metadata of audit and security events is stored as a JSON object on both engines. SQL Server's
 * CHECK (ISJSON(metadata) = 1) rejects a scalar document ("42", "\"x\"", "true"): an event whose
 * metadata was a scalar would fail its insert, and with it the audited mutation (fail-closed).
 */
describe('MetadataSanitizer', () => {
  const sanitizer = new MetadataSanitizer();
  /** what SQL Server's ISJSON(…) = 1 on 2019 accepts: an object or an array document */
  const isjson = (text: string) => /^\s*[{[]/.test(text) && (JSON.parse(text), true);

  it.each([
    ['a string', 'reason', { value: 'reason' }],
    ['a number', 42, { value: 42 }],
    ['a boolean', false, { value: false }],
    ['a bigint', 10n, { value: '10' }],
    ['a date', new Date('2025-01-02T03:04:05.000Z'), { value: '2025-01-02T03:04:05.000Z' }],
    ['an array', [1, { password: 'x', ok: 2 }], { value: [1, { ok: 2 }] }],
  ])('stores %s as an object under `value`, never as a scalar document ISJSON would reject', (_what, input, expected) => {
    const out = sanitizer.sanitize(input);
    expect(out).toEqual(expected);
    expect(isjson(JSON.stringify(out))).toBe(true);
  });

  it('keeps an object as it is, without its secret keys, and null as null', () => {
    expect(sanitizer.sanitize({ familyId: 'f', refreshToken: 'secret', nested: { Password: 'p', n: 1 } })).toEqual({
      familyId: 'f',
      nested: { n: 1 },
    });
    expect(sanitizer.sanitize(null)).toBeNull();
    expect(sanitizer.sanitize(undefined)).toBeNull();
    expect(sanitizer.sanitize(() => 1)).toBeNull();
  });

  it('adds the configured keys to the defaults, case-insensitively', () => {
    expect(new MetadataSanitizer([' Nonce ']).sanitize({ nonce: 1, NONCE: 2, token: 3, keep: 4 })).toEqual({ keep: 4 });
  });
});
