import { describe, expect, it } from '@jest/globals';
import { AuditCursorCodec } from './audit-cursor.js';

const codec = new AuditCursorCodec(Buffer.alloc(32, 7));
const position = { t: '2025-03-01T12:00:00.123456000Z', id: '1234' };

describe('AuditCursorCodec', () => {
  it('round-trips a position at full precision', () => {
    expect(codec.decode(codec.encode(position))).toEqual(position);
  });

  it('takes back a cursor at any id the store may hold, zero and negative ones included (else following cursors would restart)', () => {
    for (const id of ['0', '-1', '9223372036854775807']) expect(codec.decode(codec.encode({ ...position, id }))).toEqual({ ...position, id });
  });

  it('ignores a cursor whose payload was edited (signature no longer matches)', () => {
    const [, sig] = codec.encode(position).split('.');
    const forged = Buffer.from(JSON.stringify({ t: position.t, id: '999999' })).toString('base64url');
    expect(codec.decode(`${forged}.${sig}`)).toBeNull();
  });

  it('ignores a cursor signed with another key', () => {
    expect(codec.decode(new AuditCursorCodec(Buffer.alloc(32, 8)).encode(position))).toBeNull();
  });

  it('ignores malformed cursors of every kind', () => {
    for (const bad of [undefined, null, 42, ['a', 'b'], '', '.', 'abc', 'abc.def', `${'a'.repeat(600)}.x`, codec.encode(position).slice(0, -2)]) {
      expect(codec.decode(bad)).toBeNull();
    }
  });

  it('ignores a validly signed payload that is not a position', () => {
    const sign = (codec as unknown as { sign(payload: string): string }).sign.bind(codec);
    for (const value of [
      { t: 'nope', id: '1' },
      { t: position.t, id: '01' },
      { t: position.t, id: '-0' },
      { t: position.t, id: 12 },
      { t: position.t },
      'x',
    ]) {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      expect(codec.decode(`${payload}.${sign(payload)}`)).toBeNull();
    }
  });
});
