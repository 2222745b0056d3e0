import { describe, expect, it } from '@jest/globals';
import { retryAfterSeconds, throttleKeyOfUsername } from './login-throttle.service.js';

describe('login throttle rules', () => {
  const now = new Date('2025-03-01T12:00:00.000Z');

  it('waits until the blocking failure leaves the window', () => {
    expect(retryAfterSeconds(new Date('2025-03-01T11:58:20.000Z'), 900, now)).toBe(800);
  });

  it('rounds a partial second up, so the client never retries too early', () => {
    expect(retryAfterSeconds(new Date('2025-03-01T11:58:20.400Z'), 900, now)).toBe(801);
  });

  it('never answers less than one second', () => {
    expect(retryAfterSeconds(new Date('2025-03-01T11:45:00.000Z'), 900, now)).toBe(1);
  });

  it('counts usernames that differ only in case together', () => {
    expect(throttleKeyOfUsername('Admin')).toBe(throttleKeyOfUsername('admin'));
  });
});
