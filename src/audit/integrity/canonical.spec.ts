import { describe, expect, it } from '@jest/globals';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import {
  canonicalInstant,
  canonicalInstantFromText,
  canonicalRow,
  formatRanges,
  parseRanges,
  rangesContain,
  rangesFromSortedIds,
  rowHash,
  type AuditEventFields,
  type SecurityEventFields,
} from './canonical.js';

const audit: AuditEventFields = {
  occurredAt: '2025-03-01T12:00:00.123000Z',
  actorUserId: 7,
  actorRoleId: null,
  ip: '10.0.0.1',
  userAgent: 'curl/8 "quoted" ñ \u2028',
  correlationId: '0F8FAD5B-D9CB-469F-A165-70867728950E',
  action: 'medio.update',
  targetType: 'medio',
  targetId: '12',
  metadata: { z: 1, a: [1.5, 'x', { b: null, a: true }], n: 1e21 },
};

describe('canonical row serialization', () => {
  it('is RFC 8785 of the row object (store and version included, correlation id in lower case)', () => {
    const expected = canonicalize({ ...audit, correlationId: audit.correlationId!.toLowerCase(), store: 'audit_events', v: 1 });
    expect(canonicalRow('audit_events', audit)).toBe(expected);
    const security: SecurityEventFields = {
      occurredAt: '2025-03-01T12:00:00.000000Z',
      action: 'login',
      result: 'failure',
      actorUserId: null,
      attemptedUsername: 'ana',
      sessionId: null,
      failureReason: 'bad_password',
      ip: null,
      userAgent: null,
      metadata: null,
    };
    expect(canonicalRow('security_events', security)).toBe(canonicalize({ ...security, store: 'security_events', v: 1 }));
  });

  it('hashes the same whatever the key order or number spelling the engine gives the metadata back in', () => {
    const fromJsonb = { ...audit, metadata: JSON.parse('{"n": 1000000000000000000000, "a": [1.50, "x", {"a": true, "b": null}], "z": 1.0}') };
    expect(rowHash('audit_events', fromJsonb)).toBe(rowHash('audit_events', audit));
    expect(rowHash('audit_events', audit)).toBe(createHash('sha256').update(canonicalRow('audit_events', audit)).digest('hex'));
  });

  it('differs for any changed field, and between the stores', () => {
    const base = rowHash('audit_events', audit);
    expect(rowHash('audit_events', { ...audit, targetId: '13' })).not.toBe(base);
    expect(rowHash('audit_events', { ...audit, occurredAt: '2025-03-01T12:00:00.123001Z' })).not.toBe(base);
    expect(rowHash('audit_events', { ...audit, ip: null })).not.toBe(base);
  });

  it("reads both engines' timestamp text as the same canonical instant, keeping a non-zero seventh digit", () => {
    expect(canonicalInstant(new Date('2025-03-01T12:00:00.123Z'))).toBe('2025-03-01T12:00:00.123000Z');
    expect(canonicalInstantFromText('2025-03-01T12:00:00.123000Z')).toBe('2025-03-01T12:00:00.123000Z');
    expect(canonicalInstantFromText('2025-03-01 12:00:00.1230000')).toBe('2025-03-01T12:00:00.123000Z');
    expect(canonicalInstantFromText('2025-03-01 12:00:00.1230001')).toBe('2025-03-01T12:00:00.1230001Z');
  });
});

describe('id ranges', () => {
  it('writes ascending ids compactly and reads them back', () => {
    const ranges = rangesFromSortedIds([1, 2, 3, 5, 7, 8]);
    expect(formatRanges(ranges)).toBe('1-3,5,7-8');
    expect(parseRanges('1-3,5,7-8')).toEqual(ranges);
    expect(rangesContain(ranges, 4)).toBe(false);
    expect(rangesContain(ranges, 8)).toBe(true);
    expect(() => rangesFromSortedIds([3, 2])).toThrow();
  });
});
