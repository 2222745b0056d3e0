import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AuditStorageInspector } from '../../audit/maintenance/audit-storage.inspector.js';
import { indicate } from './storage-check.js';

/** `freshness`: the newest audit event is at most AUDIT_FRESHNESS_HOURS old (an empty store is fresh). */
@Injectable()
export class FreshnessHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly inspector: AuditStorageInspector,
  ) {}

  check() {
    return indicate(this.health, 'freshness', () => this.inspector.freshness());
  }
}
