import { describe, expect, it } from '@jest/globals';
import { parseInstant } from './point-in-time.js';

describe('parseInstant', () => {
  it('reads a UTC instant with or without seconds and fractions', () => {
    expect(parseInstant('2025-03-01T10:20:30Z')?.toISOString()).toBe('2025-03-01T10:20:30.000Z');
    expect(parseInstant('2025-03-01T10:20Z')?.toISOString()).toBe('2025-03-01T10:20:00.000Z');
    expect(parseInstant('2025-03-01T10:20:30.123456Z')?.toISOString()).toBe('2025-03-01T10:20:30.123Z');
    expect(parseInstant('2025-03-01T10:20:30.5Z')?.toISOString()).toBe('2025-03-01T10:20:30.500Z');
  });

  it('applies an explicit offset', () => {
    expect(parseInstant('2025-03-01T07:20:30-03:00')?.toISOString()).toBe('2025-03-01T10:20:30.000Z');
    expect(parseInstant('2025-03-01T12:20:30+02:00')?.toISOString()).toBe('2025-03-01T10:20:30.000Z');
  });

  it('rejects a time without a zone, a bare date and other text', () => {
    for (const raw of ['2025-03-01T10:20:30', '2025-03-01', 'yesterday', '', '1741000000', '2025-03-01 10:20:30Z', ' 2025-03-01T10:20:30Z']) {
      expect(parseInstant(raw)).toBeUndefined();
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
      '2025-01-01T10:00:00+15:00',
    ]) {
      expect(parseInstant(raw)).toBeUndefined();
    }
    expect(parseInstant('2024-02-29T00:00:00Z')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });
});
