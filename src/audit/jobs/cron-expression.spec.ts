import { describe, expect, it } from '@jest/globals';
import { CronTime } from 'cron';
import { quartzToCron, JOB_SCHEDULES } from './cron-expression.js';

/** The next `count` firing instants of a six-field expression in UTC, after `from`. */
function nextRuns(expression: string, from: string, count: number): string[] {
  const time = new CronTime(expression, 'UTC');
  const runs: string[] = [];
  let cursor = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = time.getNextDateFrom(cursor, 'UTC');
    runs.push(next.toUTC().toISO({ suppressMilliseconds: true }) ?? '');
    cursor = next.toJSDate();
  }
  return runs;
}

describe('quartzToCron', () => {
  it('translates the partition manager schedule (0 0 2 1 * ?) to the 1st of every month at 02:00 UTC', () => {
    expect(quartzToCron(JOB_SCHEDULES.partitionManager)).toBe('0 0 2 1 * *');
    expect(nextRuns('0 0 2 1 * *', '2025-01-15T00:00:00Z', 3)).toEqual(['2025-02-01T02:00:00Z', '2025-03-01T02:00:00Z', '2025-04-01T02:00:00Z']);
  });

  it('translates the retention schedule (0 0 3 1 1 ?) to 1 January at 03:00 UTC', () => {
    expect(quartzToCron(JOB_SCHEDULES.retention)).toBe('0 0 3 1 1 *');
    expect(nextRuns('0 0 3 1 1 *', '2025-01-15T00:00:00Z', 2)).toEqual(['2026-01-01T03:00:00Z', '2027-01-01T03:00:00Z']);
  });

  it('translates the integrity check schedule (0 0 1 ? * SUN) to Sundays at 01:00 UTC', () => {
    expect(quartzToCron(JOB_SCHEDULES.integrityCheck)).toBe('0 0 1 * * 0');
    // 2025-03-02 is a Sunday
    expect(nextRuns('0 0 1 * * 0', '2025-03-01T00:00:00Z', 2)).toEqual(['2025-03-02T01:00:00Z', '2025-03-09T01:00:00Z']);
  });

  it('maps Quartz day numbers (1 = SUN … 7 = SAT) and names in lists and ranges', () => {
    expect(quartzToCron('0 0 1 ? * 1')).toBe('0 0 1 * * 0');
    expect(quartzToCron('0 0 1 ? * MON-FRI')).toBe('0 0 1 * * 1-5');
    expect(quartzToCron('0 0 1 ? * 2,7')).toBe('0 0 1 * * 1,6');
    expect(quartzToCron('0 0 1 1 * ? *')).toBe('0 0 1 1 * *');
  });

  it('refuses what the cron package cannot express', () => {
    for (const bad of ['0 0 1 L * ?', '0 0 1 ? * 6#3', '0 0 1 ? * ?', '0 0 1 * *', '0 0 1 1 * ? 2030', '0 0 1 ? * 8']) {
      expect(() => quartzToCron(bad)).toThrow();
    }
  });
});
