import { describe, expect, it } from '@jest/globals';
import { retryAfterSeconds, throttledAddress, throttleSubjects } from './login-throttle.service.js';

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

  it('counts usernames that differ only in case apart: `Admin` and `admin` are two names', () => {
    expect(throttleSubjects('Admin', '10.0.0.1').global).not.toBe(throttleSubjects('admin', '10.0.0.1').global);
    expect(throttleSubjects('Admin', '10.0.0.1').pair).not.toBe(throttleSubjects('admin', '10.0.0.1').pair);
  });

  it('keys a username from one IP apart from the same username from another, and both apart from its count across IPs', () => {
    const a = throttleSubjects('ana', '10.0.0.1');
    const b = throttleSubjects('ana', '10.0.0.2');
    expect(a.global).toBe(b.global);
    expect(a.pair).not.toBe(b.pair);
    expect(a.pair).not.toBe(a.global);
  });

  it('counts an IPv6 client by its /64 (its network picks any of 2^64 addresses), an IPv4 one by its address, also when IPv4-mapped', () => {
    expect(throttledAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(throttledAddress('::1')).toBe('0:0:0:0::/64');
    expect(throttledAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(throttledAddress('2001:db8:1:2::10.0.0.1')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
    // every IPv6 spelling of an IPv4 client is that client, not one shared /64
    expect(throttledAddress('0:0:0:0:0:ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(throttledAddress('::ffff:a00:1')).toBe('10.0.0.1');
    expect(throttledAddress('::FFFF:10.0.0.2%1')).toBe('10.0.0.2');
    expect(throttledAddress('::ffff:0:10.0.0.3')).toBe('10.0.0.3');
    expect(throttledAddress('::10.0.0.4')).toBe('10.0.0.4');
    expect(throttledAddress('64:ff9b::10.0.0.5')).toBe('10.0.0.5');
    expect(throttledAddress('2001:DB8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('2001:db8:1:2::')).toBe('2001:db8:1:2::/64');
    expect(throttledAddress('::')).toBe('0:0:0:0::/64');
    expect(throttledAddress('10.0.0.1')).toBe('10.0.0.1');
    expect(throttleSubjects('ana', '2001:db8:1:2::7').pair).toBe(throttleSubjects('ana', '2001:db8:1:2:8::9').pair);
    expect(throttleSubjects('ana', '2001:db8:1:2::7').pair).not.toBe(throttleSubjects('ana', '2001:db8:1:3::7').pair);
  });

  it('keys with lower-case hex only, so a case-insensitive collation cannot merge two usernames', () => {
    expect(throttleSubjects('MiXeD', null).global).toMatch(/^[0-9a-f]{64}$/);
  });
});
