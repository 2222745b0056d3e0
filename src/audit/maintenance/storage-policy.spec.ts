import { describe, expect, it } from '@jest/globals';
import { monthsCoveredAhead, requiredMonths, uncoveredMonths, yearsBefore } from './storage-policy.js';

const d = (iso: string) => new Date(iso);
const month = (from: string, to: string, name = from) => ({ name, from: d(`${from}-01T00:00:00Z`), to: d(`${to}-01T00:00:00Z`) });

describe('storage policy', () => {
  it('requires the current UTC month and the next 3', () => {
    expect(requiredMonths(d('2025-11-30T23:59:59Z')).map((m) => m.toISOString())).toEqual([
      '2025-11-01T00:00:00.000Z',
      '2025-12-01T00:00:00.000Z',
      '2026-01-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
    ]);
  });

  it('names the months no bounded partition covers', () => {
    const months = requiredMonths(d('2025-11-15T00:00:00Z'));
    const ranges = [month('2025-11', '2025-12'), month('2026-01', '2026-02'), { name: 'rest', from: d('2026-02-01T00:00:00Z'), to: null }];
    expect(uncoveredMonths(ranges, months)).toEqual(['2025-12', '2026-02']);
    expect(uncoveredMonths([month('2025-10', '2026-03')], months)).toEqual([]);
  });

  it('counts the months covered after the current one up to the first gap, catch-all partitions not counting', () => {
    const now = d('2025-11-30T23:59:59Z');
    const monthly = [month('2025-11', '2025-12'), month('2025-12', '2026-01'), month('2026-01', '2026-02'), month('2026-03', '2026-04')];
    expect(monthsCoveredAhead(monthly, now)).toBe(2);
    expect(monthsCoveredAhead([month('2025-10', '2026-03')], now)).toBe(3);
    expect(monthsCoveredAhead([month('2025-12', '2026-06')], now)).toBe(0); // this month has none
    expect(monthsCoveredAhead([month('2025-11', '2025-12'), { name: 'rest', from: d('2025-12-01T00:00:00Z'), to: null }], now)).toBe(0);
  });

  it('counts retention in calendar years, 29 February falling back to the 28th', () => {
    expect(yearsBefore(d('2025-06-15T12:00:00Z'), 10).toISOString()).toBe('2015-06-15T12:00:00.000Z');
    expect(yearsBefore(d('2024-02-29T08:00:00Z'), 5).toISOString()).toBe('2019-02-28T08:00:00.000Z');
  });
});
