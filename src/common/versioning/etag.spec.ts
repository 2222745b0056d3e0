import { describe, expect, it } from '@jest/globals';
import { etagOf, parseIfMatch, rowVersionOf, withRowVersion } from './etag.js';

describe('entity tags', () => {
  it('are strong quoted tags that change with the representation and with the row version', () => {
    const tag = etagOf(1, { nombre: 'A' });
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf(1, { nombre: 'A' })).toBe(tag);
    expect(etagOf(1, { nombre: 'B' })).not.toBe(tag);
    // a committed change that leaves every field as it was is still a new tag
    expect(etagOf(2, { nombre: 'A' })).not.toBe(tag);
  });

  it('carry a row version next to a representation without serializing it', () => {
    const dto = withRowVersion({ id: 1 }, 7);
    expect(rowVersionOf(dto)).toBe(7);
    expect(JSON.stringify(dto)).toBe('{"id":1}');
    expect(rowVersionOf({ id: 1 })).toBeUndefined();
  });
});

describe('If-Match', () => {
  it('is absent only when the header is missing; a blank one names no tag', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('')).toEqual({ any: false, tags: [] });
    expect(parseIfMatch('  ')).toEqual({ any: false, tags: [] });
    expect(parseIfMatch(' , ')).toEqual({ any: false, tags: [] });
  });

  it('reads * as any existing representation', () => {
    expect(parseIfMatch('*')).toEqual({ any: true });
  });

  it('reads a list of strong tags and drops weak or unquoted ones (strong comparison)', () => {
    expect(parseIfMatch('"a", W/"b",c , "d"')).toEqual({ any: false, tags: ['"a"', '"d"'] });
    expect(parseIfMatch(['"a"', '"b"'])).toEqual({ any: false, tags: ['"a"', '"b"'] });
  });
});
