/**
 * Instants of the audit API as canonical UTC strings with nine fraction digits
 * (`2025-03-01T12:00:00.123456000Z`): they sort as text, and they carry the engines' full
 * precision (PostgreSQL microseconds, SQL Server 100 ns), which a JavaScript Date would cut to
 * milliseconds.
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/i;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Parses an ISO-8601 timestamp (`2025-03-01T12:00:00Z`, `…T09:00:00.5-03:00`; without an offset
 * it is UTC) into the canonical form; null when it is not a valid instant between the years 1
 * and 9999. A date without a time is refused: an inclusive `to=2025-03-31` would silently mean
 * the first instant of that day.
 */
export function parseInstant(text: string): string | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const fraction = (m[7] ?? '').padEnd(9, '0');
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, 0);
  if (local.getUTCFullYear() !== year || local.getUTCMonth() !== month - 1 || local.getUTCDate() !== day) return null; // 2025-02-30
  const utc = new Date(local.getTime() - offsetMinutes * 60_000);
  if (utc.getUTCFullYear() < 1 || utc.getUTCFullYear() > 9999) return null;
  return `${formatSeconds(utc)}.${fraction}Z`;
}

/** The canonical form of a Date (millisecond precision). */
export function instantOf(date: Date): string {
  return `${formatSeconds(date)}.${pad(date.getUTCMilliseconds(), 3)}000000Z`;
}

/** The ISO-8601 text of a canonical instant at microsecond precision, as the API shows it. */
export function displayInstant(instant: string): string {
  return `${instant.slice(0, 26)}Z`;
}

function formatSeconds(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
}
