import { parseInstant } from '../audit/utc-instant.js';

/**
 * Parses the `asOf` instant of point-in-time reads into the canonical UTC form of the audit API
 * (utc-instant.ts: nine fraction digits, so the engines' microseconds and 100 ns are kept, never
 * cut to a Date's milliseconds): the audit list's instants, except that the zone (`Z` or `±hh:mm`)
 * is required, since a zoneless time names no instant. Undefined for anything else.
 */
export function parseAsOf(raw: string): string | undefined {
  if (raw !== raw.trim() || !/(?:Z|[+-]\d{2}:\d{2})$/i.test(raw)) return undefined;
  return parseInstant(raw) ?? undefined;
}
