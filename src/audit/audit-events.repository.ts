import { Inject, Injectable } from '@nestjs/common';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { ReplicaReads } from '../database/replica-reads.js';
import type { AuditPageQuery, AuditPageRow } from '../database/dialects/sql-dialect.js';

/** The first instant of the UTC month of a canonical instant (`2025-03-14T…Z` → `2025-03-01T00:00:00.000000000Z`). */
export function monthStartOf(instant: string): string {
  return `${instant.slice(0, 7)}-01T00:00:00.000000000Z`;
}

/**
 * Reads of the audit store: one keyset page, in the engine's SQL (see the dialects), served by the
 * read replica when one is configured and fresh enough (ReplicaReads).
 */
@Injectable()
export class AuditEventsRepository {
  constructor(
    private readonly reads: ReplicaReads,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /**
   * A page after a cursor is read first within the cursor's own month, i.e. its monthly partition:
   * with that lower bound the planner keeps one partition instead of every older one, and
   * planning over all partitions was what made a deep page slower at a million rows than at ten
   * thousand (BENCHMARKS.md). Only when that month holds fewer rows than asked does a second read
   * continue, strictly before the month, for the rest. The rows are the same as one read's.
   */
  async page(query: AuditPageQuery): Promise<AuditPageRow[]> {
    const after = query.after;
    if (!after) return this.read(query);
    const monthStart = monthStartOf(after.t);
    if (query.from !== undefined && query.from >= monthStart) return this.read(query);
    const inMonth = await this.read({ ...query, from: monthStart });
    if (inMonth.length >= query.rows) return inMonth;
    // every row left is older than the month: keyset position (monthStart, 0) — ids are positive
    const older = await this.read({ ...query, after: { t: monthStart, id: '0' }, rows: query.rows - inMonth.length });
    return [...inMonth, ...older];
  }

  private read(query: AuditPageQuery): Promise<AuditPageRow[]> {
    const { sql, parameters } = this.dialect.auditEventsPage(query);
    return this.reads.read((db) => db.query(sql, parameters));
  }
}
