import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { AppMetrics } from '../../observability/metrics.js';
import { monthLabel, monthsCoveredAhead, requiredMonths, STORAGE_POLICY, uncoveredMonths } from './storage-policy.js';

const EVENT_STORES: readonly EventStore[] = ['audit_events', 'security_events'];

/** How old the reading of the partitions ahead a scrape answers may be; they change once a month. */
const AHEAD_MAX_AGE_MS = 60_000;
const FIRST_SCRAPE_WAIT_MS = 1_000;

/** The outcome of one storage check: what the health endpoint and the integrity job report. */
export interface StorageCheck {
  healthy: boolean;
  /** names tables and months, never anything secret */
  data: Record<string, unknown>;
}

export type StorageCheckName = 'versioning' | 'retention' | 'partitions_audit_events' | 'partitions_security_events' | 'freshness';

/**
 * The checks of the audit storage (GET /health/audit and the integrity check; docs/api.md "Health"), read from the
 * engine's catalog through the dialect. One method per check; the health indicators and the
 * integrity-check job both call them.
 */
@Injectable()
export class AuditStorageInspector implements OnModuleInit {
  private readonly logger = new Logger('AuditStorage');
  /** The last reading of the partitions ahead, by store, and when it began; one reading at a time. */
  private readonly ahead = new Map<EventStore, number>();
  private aheadReadAt = -Infinity;
  private aheadReading?: Promise<void>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
  ) {}

  /**
   * audit_partitions_ahead_months{store}, read from the catalog at most once a minute, in the
   * background of the scrapes: a scrape never waits for a database connection (with the pool
   * exhausted, two reads of up to the connect timeout each took the scrape past Prometheus' 10 s
   * timeout, and a failed scrape makes every series stale). Only the first scrape waits, at most
   * a second, for the first reading. A store whose catalog could not be read at the last reading is
   * left out (the pool and error metrics tell why), rather than failing the whole scrape.
   */
  onModuleInit(): void {
    this.metrics.gaugeReadAtScrape(
      {
        name: 'audit_partitions_ahead_months',
        help: 'Months after the current one covered by monthly partitions (the job keeps 3)',
        labelNames: ['store'],
      },
      async (gauge) => {
        if (this.clock.now().getTime() - this.aheadReadAt > AHEAD_MAX_AGE_MS) {
          const first = this.aheadReadAt === -Infinity;
          const reading = this.readAhead();
          if (first) await Promise.race([reading, setTimeout(FIRST_SCRAPE_WAIT_MS, undefined, { ref: false })]);
        }
        gauge.reset();
        for (const [store, months] of this.ahead) gauge.set({ store }, months);
      },
    );
  }

  private readAhead(): Promise<void> {
    this.aheadReading ??= (async () => {
      this.aheadReadAt = this.clock.now().getTime();
      for (const store of EVENT_STORES) {
        try {
          this.ahead.set(store, await this.monthsAhead(store));
        } catch (err) {
          this.ahead.delete(store);
          this.logger.warn(`partitions of ${store} could not be read for the metrics: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })().finally(() => (this.aheadReading = undefined));
    return this.aheadReading;
  }

  /** How many months after the current one the store's monthly partitions cover without a gap. */
  async monthsAhead(store: EventStore): Promise<number> {
    return monthsCoveredAhead(await this.dialect.partitionRanges(this.dataSource, store), this.clock.now());
  }

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
