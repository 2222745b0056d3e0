import { describe, expect, it } from '@jest/globals';
import { calendarDateIn, isCalendarDate, isMonto, todayInArgentina } from './price-rules.js';

describe('todayInArgentina', () => {
  it('is still the previous day at 02:30 UTC (Buenos Aires is UTC-3)', () => {
    expect(todayInArgentina(new Date('2026-03-10T02:30:00Z'))).toBe('2026-03-09');
  });

  it('turns to the new day at 03:00 UTC', () => {
    expect(todayInArgentina(new Date('2026-03-10T03:00:00Z'))).toBe('2026-03-10');
  });

  it('crosses month and year boundaries', () => {
    expect(todayInArgentina(new Date('2027-01-01T01:00:00Z'))).toBe('2026-12-31');
  });

  it('formats the date of any time zone as yyyy-MM-dd', () => {
    expect(calendarDateIn(new Date('2026-03-10T02:30:00Z'), 'UTC')).toBe('2026-03-10');
    expect(calendarDateIn(new Date('2026-03-10T02:30:00Z'), 'Asia/Tokyo')).toBe('2026-03-10');
  });
});

describe('isCalendarDate', () => {
  it('accepts real dates written yyyy-MM-dd, leap days included', () => {
    expect(isCalendarDate('2026-01-31')).toBe(true);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2000-02-29')).toBe(true);
  });

  it('rejects dates that do not exist', () => {
    expect(isCalendarDate('2026-02-30')).toBe(false);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2026-04-31')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('2026-00-10')).toBe(false);
    expect(isCalendarDate('2026-01-00')).toBe(false);
    expect(isCalendarDate('0000-01-01')).toBe(false);
  });

  it('rejects anything but exactly yyyy-MM-dd', () => {
    for (const v of [
      '2026-1-05',
      '26-01-05',
      '2026/01/05',
      '2026-01-05T00:00:00Z',
      '2026-01-05 ',
      ' 2026-01-05',
      '20260105',
      '',
      null,
      20260105,
      undefined,
    ]) {
      expect(isCalendarDate(v)).toBe(false);
    }
  });
});

describe('isMonto', () => {
  it('accepts positive JSON numbers with up to 2 decimals', () => {
    for (const v of [1, 0.01, 10.1, 10.5, 1234.56, 9_999_999_999.99]) expect(isMonto(v)).toBe(true);
  });

  it('rejects zero, negatives, more than 2 decimals, non-finite and out-of-range values', () => {
    for (const v of [0, -1, 10.001, 0.005, 1e-7, Number.POSITIVE_INFINITY, Number.NaN, 10_000_000_000]) expect(isMonto(v)).toBe(false);
  });

  it('rejects strings and other types', () => {
    for (const v of ['10', '10.5', true, null, undefined, {}]) expect(isMonto(v)).toBe(false);
  });
});
