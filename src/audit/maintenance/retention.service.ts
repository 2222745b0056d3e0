import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { type JobResult, MaintenanceJobRunner, type JobRunOptions } from './maintenance-job.runner.js';
import { STORAGE_POLICY, yearsBefore } from './storage-policy.js';

/**
 * Retention enforcer (`0 0 3 1 1 ?`): audit rows older than 10 years and
 * security rows older than 5 go — whole partitions where every row is expired, chunked deletes
 * in the partition the cutoff falls in — and, on PostgreSQL, history versions that ended more than
 * 10 years ago (SQL Server's temporal tables do that natively). Idempotent.
 */
@Injectable()
export class RetentionService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly runner: MaintenanceJobRunner,
    private readonly clock: Clock,
  ) {}

  run(options: JobRunOptions = {}): Promise<JobResult> {
    return this.runner.run(
      'retention',
      async () => {
        const now = this.clock.now();
        const audit = await this.expireStore('audit_events', yearsBefore(now, STORAGE_POLICY.auditRetentionYears));
        const security = await this.expireStore('security_events', yearsBefore(now, STORAGE_POLICY.securityRetentionYears));
        const history = await this.expireHistory(yearsBefore(now, STORAGE_POLICY.historyRetentionYears));
        return { details: { audit_events: audit, security_events: security, history } };
      },
      options,
    );
  }

  private async expireStore(store: EventStore, cutoff: Date) {
    const droppedPartitions = await this.dialect.dropPartitionsOlderThan(this.dataSource, store, cutoff);
    let deletedRows = 0;
    for (;;) {
      const n = await this.dialect.deleteRowsOlderThan(this.dataSource, store, cutoff, STORAGE_POLICY.deleteChunkRows);
      deletedRows += n;
      if (n < STORAGE_POLICY.deleteChunkRows) break;
    }
    return { cutoff: cutoff.toISOString(), droppedPartitions, deletedRows };
  }

  private async expireHistory(cutoff: Date) {
    const deleted: Record<string, number | 'native'> = {};
    for (const table of STORAGE_POLICY.versionedTables) {
      let total = 0;
      for (;;) {
        const n = await this.dialect.deleteHistoryOlderThan(this.dataSource, table, cutoff, STORAGE_POLICY.deleteChunkRows);
        if (n === null) {
          deleted[table] = 'native';
          break;
        }
        total += n;
        deleted[table] = total;
        if (n < STORAGE_POLICY.deleteChunkRows) break;
      }
    }
    return { cutoff: cutoff.toISOString(), deletedRows: deleted };
  }
}
