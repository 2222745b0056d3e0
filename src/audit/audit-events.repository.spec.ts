import { describe, expect, it } from '@jest/globals';
import { monthStartOf } from './audit-events.repository.js';

describe('monthStartOf', () => {
  it('is the first instant of the UTC month of a canonical instant', () => {
    expect(monthStartOf('2025-03-14T12:34:56.123456789Z')).toBe('2025-03-01T00:00:00.000000000Z');
    expect(monthStartOf('2025-03-01T00:00:00.000000000Z')).toBe('2025-03-01T00:00:00.000000000Z');
    expect(monthStartOf('2024-12-31T23:59:59.999999999Z')).toBe('2024-12-01T00:00:00.000000000Z');
  });
});
