import { Injectable } from '@nestjs/common';
import { AuditIntegrityService, summarize } from '../integrity/audit-integrity.service.js';
import { SecurityEventsService } from '../security-events.service.js';
import { AuditStorageInspector, type StorageCheck, type StorageCheckName } from './audit-storage.inspector.js';
import { type JobResult, MaintenanceJobRunner, type JobRunOptions } from './maintenance-job.runner.js';

/**
 * Integrity check (`0 0 1 ? * SUN`): system versioning of the four versioned tables
 * (on, with its history table and its 10-year retention) and the 3-month partition look-ahead of
 * both event stores — the same checks as GET /health/audit. A failure writes the security event
 * `system.integrity_alert` (failure) naming what failed.
 */
@Injectable()
export class IntegrityCheckService {
  constructor(
    private readonly inspector: AuditStorageInspector,
    private readonly securityEvents: SecurityEventsService,
    private readonly runner: MaintenanceJobRunner,
    private readonly integrity: AuditIntegrityService,
  ) {}

  run(options: JobRunOptions = {}): Promise<JobResult> {
    return this.runner.run(
      'integrity-check',
      async () => {
        const checks: Partial<Record<StorageCheckName, StorageCheck>> = {
          versioning: await this.inspector.versioning(),
          retention: await this.inspector.retention(),
          partitions_audit_events: await this.inspector.partitions('audit_events'),
          partitions_security_events: await this.inspector.partitions('security_events'),
        };
        const failed: Record<string, unknown> = Object.fromEntries(
          Object.entries(checks)
            .filter(([, c]) => !c.healthy)
            .map(([name, c]) => [name, c.data]),
        );
        // the tamper evidence: every row hash and seal, as `npm run cli -- audit:verify` checks them
        const report = await this.integrity.verify();
        await this.integrity.record(report);
        const seals = summarize(report);
        if (!report.intact) failed.seals = seals;
        const healthy = Object.keys(failed).length === 0;
        if (!healthy) {
          await this.securityEvents.record({
            action: 'system.integrity_alert',
            result: 'failure',
            failureReason: report.intact ? 'integrity_check_failed' : 'audit_trail_tampered',
            metadata: { failed },
          });
        }
        return {
          status: healthy ? 'ok' : 'alert',
          details: {
            healthy,
            checks: {
              ...Object.fromEntries(Object.entries(checks).map(([name, c]) => [name, { healthy: c.healthy, ...c.data }])),
              seals: { healthy: report.intact, ...seals },
            },
          },
        };
      },
      options,
    );
  }
}
