import { describe, expect, it } from '@jest/globals';
import { sealChunks } from './audit-seal.service.js';

const at = (id: number, occurredAt: string) => ({ id, occurredAt });

describe('sealChunks', () => {
  it('cuts at the count and at each UTC day of occurredAt, so no seal holds more than one day of events', () => {
    const covered = [
      at(1, '2016-11-24T23:59:59.000000Z'),
      at(2, '2016-11-25T00:00:00.000000Z'),
      at(3, '2016-11-25T10:00:00.000000Z'),
      at(4, '2016-11-25T11:00:00.000000Z'),
      at(5, '2016-11-25T12:00:00.000000Z'),
      at(6, '2026-11-25T08:00:00.000000Z'),
    ];
    expect(sealChunks(covered, new Set(), 50_000).map((c) => c.map((r) => r.id))).toEqual([[1], [2, 3, 4, 5], [6]]);
    expect(sealChunks(covered, new Set(), 2).map((c) => c.map((r) => r.id))).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('keeps the late events (first, and older) with the first day of the fresh ones', () => {
    const covered = [at(7, '2026-11-24T23:59:58.000000Z'), at(9, '2026-11-25T00:00:01.000000Z'), at(10, '2026-11-25T00:00:02.000000Z')];
    expect(sealChunks(covered, new Set([7]), 50_000).map((c) => c.map((r) => r.id))).toEqual([[7, 9, 10]]);
  });

  it('gives an event backdated among fresh ones a seal of its own', () => {
    const covered = [at(20, '2026-11-25T08:00:00.000000Z'), at(21, '2015-01-15T00:00:00.000000Z'), at(22, '2026-11-25T08:00:01.000000Z')];
    expect(sealChunks(covered, new Set(), 50_000).map((c) => c.map((r) => r.id))).toEqual([[20], [21], [22]]);
  });
});
