import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { monthLabel, requiredMonths, STORAGE_POLICY, uncoveredMonths } from './storage-policy.js';

/** The outcome of one storage check: what the health endpoint and the integrity job report. */
export interface StorageCheck {
  healthy: boolean;
  /** names tables and months, never anything secret */
  data: Record<string, unknown>;
}

export type StorageCheckName = 'versioning' | 'retention' | 'partitions_audit_events' | 'partitions_security_events' | 'freshness';

/**
 * The checks of the audit storage (SEED 4.4 "health", 6.3 "integrity check"), read from the
 * engine's catalog through the dialect. One method per check; the health indicators and the
 * integrity-check job both call them.
 */
@Injectable()
export class AuditStorageInspector {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** System versioning is on for users, roles, permissions and role_permissions, with their history tables. */
  async versioning(): Promise<StorageCheck> {
    const states = await this.dialect.versioningState(this.dataSource, STORAGE_POLICY.versionedTables);
    const failing = states.flatMap((s) => {
      if (!s.enabled) return [{ table: s.table, problem: 'system versioning is off' }];
      if (!s.historyTable || !s.historyTableExists) return [{ table: s.table, problem: `history table ${s.historyTable ?? '(none)'} is missing` }];
      return [];
    });
    return failing.length
      ? { healthy: false, data: { message: `system versioning is not in place for ${failing.map((f) => f.table).join(', ')}`, failing } }
      : { healthy: true, data: { tables: states.map((s) => s.table) } };
  }

  /** The history retention of every versioned table is 10 years (and the engine enforces it). */
  async retention(): Promise<StorageCheck> {
    const expected = STORAGE_POLICY.historyRetentionYears;
    const states = await this.dialect.historyRetention(this.dataSource, STORAGE_POLICY.versionedTables);
    const failing = states.flatMap((s) => {
      if (s.years !== expected) return [{ table: s.table, retention: s.retention, problem: `history retention is not ${expected} years` }];
      if (!s.enforced) return [{ table: s.table, retention: s.retention, problem: 'history retention is not enforced by the database' }];
      return [];
    });
    return failing.length
      ? {
          healthy: false,
          data: {
            message: `history retention is not ${expected} years for ${failing.map((f) => f.table).join(', ')}`,
            expectedYears: expected,
            failing,
          },
        }
      : { healthy: true, data: { years: expected, tables: states.map((s) => s.table) } };
  }

  /** Monthly partitions of the store cover this month and the next 3 (UTC). */
  async partitions(store: EventStore): Promise<StorageCheck> {
    const months = requiredMonths(this.clock.now());
    const missing = uncoveredMonths(await this.dialect.partitionRanges(this.dataSource, store), months);
    return missing.length
      ? { healthy: false, data: { message: `no partition of ${store} covers ${missing.join(', ')}`, table: store, missing } }
      : { healthy: true, data: { table: store, months: months.map(monthLabel) } };
  }

  /** The newest audit event is at most AUDIT_FRESHNESS_HOURS old; an empty store is fresh. */
  async freshness(): Promise<StorageCheck> {
    const maxAgeHours = this.config.auditFreshnessHours;
    const row: { newest: Date | string | null } | undefined = await this.dataSource
      .createQueryBuilder()
      .select('MAX(e.occurred_at)', 'newest')
      .from('audit_events', 'e')
      .getRawOne();
    if (!row?.newest) return { healthy: true, data: { newestEventAt: null, maxAgeHours } };
    const newest = new Date(row.newest);
    const ageHours = Math.max(0, (this.clock.now().getTime() - newest.getTime()) / 3_600_000);
    const data = { newestEventAt: newest.toISOString(), ageHours: Math.round(ageHours * 100) / 100, maxAgeHours };
    return ageHours <= maxAgeHours
      ? { healthy: true, data }
      : { healthy: false, data: { message: `the newest audit event is older than ${maxAgeHours} hours`, ...data } };
  }
}
