import { describe, expect, it } from '@jest/globals';
import { parseAsOf } from './point-in-time.js';

describe('parseAsOf', () => {
  it('reads a UTC instant with or without seconds and fractions, keeping every fraction digit', () => {
    expect(parseAsOf('2025-03-01T10:20:30Z')).toBe('2025-03-01T10:20:30.000000000Z');
    expect(parseAsOf('2025-03-01T10:20Z')).toBe('2025-03-01T10:20:00.000000000Z');
    expect(parseAsOf('2025-03-01T10:20:30.123456Z')).toBe('2025-03-01T10:20:30.123456000Z');
    expect(parseAsOf('2025-03-01T10:20:30.1234567z')).toBe('2025-03-01T10:20:30.123456700Z');
    expect(parseAsOf('2025-03-01T10:20:30.5Z')).toBe('2025-03-01T10:20:30.500000000Z');
  });

  it('applies an explicit offset', () => {
    expect(parseAsOf('2025-03-01T07:20:30-03:00')).toBe('2025-03-01T10:20:30.000000000Z');
    expect(parseAsOf('2025-03-01T12:20:30+02:00')).toBe('2025-03-01T10:20:30.000000000Z');
  });

  it('reads the years 1 to 99 as themselves, not as 1901 to 1999', () => {
    expect(parseAsOf('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000000000Z');
    expect(parseAsOf('0099-06-30T12:00:00Z')).toBe('0099-06-30T12:00:00.000000000Z');
  });

  it('rejects a time without a zone, a bare date and other text', () => {
    for (const raw of ['2025-03-01T10:20:30', '2025-03-01', 'yesterday', '', '1741000000', '2025-03-01 10:20:30Z', ' 2025-03-01T10:20:30Z']) {
      expect(parseAsOf(raw)).toBeUndefined();
    }
  });

  it('rejects impossible calendar values', () => {
    for (const raw of [
      '2025-02-30T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-00-10T00:00:00Z',
      '2025-01-01T24:00:00Z',
      '2025-01-01T10:60:00Z',
      '2025-01-01T10:00:60Z',
      '2025-01-01T10:00:00+24:00',
    ]) {
      expect(parseAsOf(raw)).toBeUndefined();
    }
    expect(parseAsOf('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000000000Z');
  });
});
