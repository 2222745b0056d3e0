import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { AuditStorageInspector } from '../../audit/maintenance/audit-storage.inspector.js';
import { indicate } from './storage-check.js';

/** `versioning`: system versioning is on for users, roles, permissions and role_permissions. */
@Injectable()
export class VersioningHealthIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly inspector: AuditStorageInspector,
  ) {}

  check() {
    return indicate(this.health, 'versioning', () => this.inspector.versioning());
  }
}
