import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { AuditStorageInspector } from './audit-storage.inspector.js';
import { type JobResult, MaintenanceJobRunner, type JobRunOptions } from './maintenance-job.runner.js';
import { monthLabel, monthStart, STORAGE_POLICY } from './storage-policy.js';

const STORES: readonly EventStore[] = ['audit_events', 'security_events'];

/**
 * Partition manager (`0 0 2 1 * ?`): makes sure both event stores have their monthly
 * partitions from the current UTC month through the third month ahead — the seed's "month after
 * next" and the health check's 3-month look-ahead. Idempotent: existing partitions are kept.
 * The run ends `alert` when a month is still uncovered afterwards, read back from the catalog as
 * the health check reads it: a table detached by hand that keeps a month's partition name makes
 * the database skip that month, and the run must not report it covered.
 */
@Injectable()
export class PartitionManagerService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly runner: MaintenanceJobRunner,
    private readonly inspector: AuditStorageInspector,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  run(options: JobRunOptions = {}): Promise<JobResult> {
    return this.runner.run(
      'partition-manager',
      async () => {
        const now = this.clock.now();
        const first = monthStart(now);
        const last = monthStart(now, STORAGE_POLICY.partitionLookaheadMonths);
        const created: Record<string, number> = {};
        for (const store of STORES) {
          created[store] = await this.dialect.ensureMonthlyPartitions(this.dataSource, store, first, last, this.config.db.maintenanceTimeoutMs);
        }
        const details: Record<string, unknown> = { from: monthLabel(first), through: monthLabel(last), created };
        const uncovered: Record<string, unknown> = {};
        for (const store of STORES) {
          const check = await this.inspector.partitions(store);
          if (!check.healthy) uncovered[store] = check.data.missing;
        }
        return Object.keys(uncovered).length ? { status: 'alert', details: { ...details, uncovered } } : { details };
      },
      options,
    );
  }
}
