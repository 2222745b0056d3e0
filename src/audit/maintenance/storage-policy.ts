import type { PartitionRange, VersionedTable } from '../../database/dialects/sql-dialect.js';

/** What the audit storage must keep and for how long (docs/operations-audit.md, "Scheduled maintenance"). */
export const STORAGE_POLICY = {
  versionedTables: ['users', 'roles', 'permissions', 'role_permissions'] as const satisfies readonly VersionedTable[],
  historyRetentionYears: 10,
  auditRetentionYears: 10,
  securityRetentionYears: 5,
  /** partitions must exist for the current month and this many months ahead */
  partitionLookaheadMonths: 3,
  /** rows per DELETE when a partition is only partly expired */
  deleteChunkRows: 5000,
} as const;

/** The first instant of the UTC month `offset` months after the month of `now`. */
export function monthStart(now: Date, offset = 0): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
}

/** `YYYY-MM` of a UTC month start. */
export function monthLabel(month: Date): string {
  return `${String(month.getUTCFullYear()).padStart(4, '0')}-${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The UTC months a partitioned store must cover now: this month and the look-ahead. */
export function requiredMonths(now: Date, lookahead: number = STORAGE_POLICY.partitionLookaheadMonths): Date[] {
  return Array.from({ length: lookahead + 1 }, (_v, i) => monthStart(now, i));
}

/**
 * The months (as `YYYY-MM`) not covered by a bounded partition. Open-ended partitions (the
 * outer SQL Server partitions, MINVALUE/MAXVALUE, DEFAULT) do not count: they are catch-alls,
 * not the monthly partitions the maintenance keeps ahead.
 */
export function uncoveredMonths(ranges: readonly PartitionRange[], months: readonly Date[]): string[] {
  return months
    .filter((m) => {
      const end = monthStart(m, 1).getTime();
      return !ranges.some((r) => r.from !== null && r.to !== null && r.from.getTime() <= m.getTime() && r.to.getTime() >= end);
    })
    .map(monthLabel);
}

/**
 * How many whole months after the current one (UTC) are covered by bounded partitions, counted
 * without a gap: 0 when next month (or this one) has none. At most `max`.
 */
export function monthsCoveredAhead(ranges: readonly PartitionRange[], now: Date, max = 120): number {
  if (uncoveredMonths(ranges, [monthStart(now, 0)]).length) return 0;
  let ahead = 0;
  while (ahead < max && !uncoveredMonths(ranges, [monthStart(now, ahead + 1)]).length) ahead++;
  return ahead;
}

/** The same instant `years` calendar years earlier (UTC; 29 February falls back to 28). */
export function yearsBefore(now: Date, years: number): Date {
  const d = new Date(now.getTime());
  d.setUTCFullYear(now.getUTCFullYear() - years);
  if (d.getUTCMonth() !== now.getUTCMonth()) d.setUTCDate(0);
  return d;
}
