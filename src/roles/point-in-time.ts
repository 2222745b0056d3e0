/**
 * Parses the `asOf` instant of point-in-time reads: ISO-8601 date and time with seconds optional,
 * fractions optional, and a zone (`Z` or `±hh:mm`) required, since a zoneless time names no
 * instant. Fractions beyond milliseconds are truncated. Returns undefined for anything else,
 * impossible dates (2025-02-30) included.
 */
export function parseInstant(raw: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/.exec(raw);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  const zone = m[8] as string;
  if (zone !== 'Z') {
    const [h, min] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
    if (h > 14 || min > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (h * 60 + min);
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
