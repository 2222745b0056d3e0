import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AuditStorageInspector } from '../../audit/maintenance/audit-storage.inspector.js';
import { indicate } from './storage-check.js';

/** `retention`: the history retention of the versioned tables is 10 years. */
@Injectable()
export class RetentionHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly inspector: AuditStorageInspector,
  ) {}

  check() {
    return indicate(this.health, 'retention', () => this.inspector.retention());
  }
}
