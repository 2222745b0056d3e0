import { describe, expect, it } from '@jest/globals';
import { displayInstant, instantOf, parseInstant } from './utc-instant.js';

describe('parseInstant', () => {
  it('keeps every fraction digit up to nanoseconds in the canonical form', () => {
    expect(parseInstant('2025-03-01T12:00:00.123456Z')).toBe('2025-03-01T12:00:00.123456000Z');
    expect(parseInstant('2025-03-01T12:00:00.1234567Z')).toBe('2025-03-01T12:00:00.123456700Z');
    expect(parseInstant('2025-03-01T12:00:00Z')).toBe('2025-03-01T12:00:00.000000000Z');
  });

  it('converts an offset to UTC and reads a timestamp without one as UTC', () => {
    expect(parseInstant('2025-03-01T09:30:00.5-03:00')).toBe('2025-03-01T12:30:00.500000000Z');
    expect(parseInstant('2025-01-01T01:00:00+02:00')).toBe('2024-12-31T23:00:00.000000000Z');
    expect(parseInstant('2025-03-01T12:00')).toBe('2025-03-01T12:00:00.000000000Z');
  });

  it('refuses what is not an instant', () => {
    for (const bad of [
      '',
      'yesterday',
      '2025-03-01',
      '2025-02-30T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-03-01T24:00:00Z',
      '2025-03-01T12:00:60Z',
      '0000-01-01T00:00:00Z',
      '2025-03-01T12:00:00.1234567890Z',
      '2025-03-01T12:00:00+25:00',
      '1741000000',
    ]) {
      expect(parseInstant(bad)).toBeNull();
    }
  });

  it('orders canonical instants as text in time order', () => {
    const a = parseInstant('2025-03-01T12:00:00.000001Z')!;
    const b = parseInstant('2025-03-01T12:00:00.00001Z')!;
    const c = parseInstant('2025-03-01T09:00:01-03:00')!;
    expect([c, b, a].sort()).toEqual([a, b, c]);
  });

  it('shows instants at microsecond precision and reads Dates at milliseconds', () => {
    expect(displayInstant('2025-03-01T12:00:00.123456700Z')).toBe('2025-03-01T12:00:00.123456Z');
    expect(instantOf(new Date('2025-03-01T12:00:00.123Z'))).toBe('2025-03-01T12:00:00.123000000Z');
  });
});
