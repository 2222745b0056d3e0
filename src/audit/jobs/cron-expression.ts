/**
 * The seed writes its schedules in Quartz form (`sec min hour day-of-month month day-of-week`,
 * with `?` for "no specific value" and days of week 1 = SUN … 7 = SAT). The `cron` package behind
 * @nestjs/schedule reads six fields without `?`, days of week 0 = SUN … 6 = SAT, months 1–12.
 */
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

export function quartzToCron(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 7) {
    if (fields[6] !== '*') throw new Error(`the year field is not supported: ${expression}`);
    fields.pop();
  }
  if (fields.length !== 6) throw new Error(`a Quartz expression has 6 or 7 fields: ${expression}`);
  if (fields.some((f) => /[LW#]/i.test(f))) throw new Error(`L, W and # are not supported: ${expression}`);
  const [second, minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string, string];
  if (dayOfMonth === '?' && dayOfWeek === '?') throw new Error(`only one of day-of-month and day-of-week may be '?': ${expression}`);
  const dow = dayOfWeek === '?' ? '*' : dayOfWeek.replace(/[A-Za-z]{3}|\d+/g, (token) => quartzDay(token, expression));
  return [second, minute, hour, dayOfMonth === '?' ? '*' : dayOfMonth, month, dow].join(' ');
}

function quartzDay(token: string, expression: string): string {
  const named = DAY_NAMES.indexOf(token.toUpperCase());
  if (named >= 0) return String(named);
  const n = Number(token);
  if (!Number.isInteger(n) || n < 1 || n > 7) throw new Error(`a Quartz day of week is 1-7 or SUN-SAT: ${expression}`);
  return String(n - 1);
}

/** The schedules of docs/api.md "Scheduled jobs", in Quartz syntax (UTC). */
export const JOB_SCHEDULES = {
  partitionManager: '0 0 2 1 * ?',
  retention: '0 0 3 1 1 ?',
  integrityCheck: '0 0 1 ? * SUN',
} as const;
