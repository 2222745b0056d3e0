import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AuditStorageInspector } from '../../audit/maintenance/audit-storage.inspector.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { indicate } from './storage-check.js';

/**
 * `partitions_audit_events` / `partitions_security_events`: the store's monthly partitions cover
 * the current UTC month and the next 3. One check, run once per store under its own key.
 */
@Injectable()
export class PartitionsHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly inspector: AuditStorageInspector,
  ) {}

  check<const S extends EventStore>(store: S) {
    return indicate(this.health, `partitions_${store}` as const, () => this.inspector.partitions(store));
  }
}
