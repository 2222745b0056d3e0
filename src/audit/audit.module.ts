import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { hkdfSync } from 'node:crypto';
import { JwtKeys } from '../auth/jwt-keys.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { AuditCursorCodec } from './audit-cursor.js';
import { AuditEventEntity } from './audit-event.entity.js';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditEventsRepository } from './audit-events.repository.js';
import { AuditEventsService } from './audit-events.service.js';
import { AuditService } from './audit.service.js';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import { AuditIntegrityController } from './integrity/audit-integrity.controller.js';
import { AuditIntegrityService } from './integrity/audit-integrity.service.js';
import { AUDIT_SEAL_OPTIONS, AuditSealService, DEFAULT_AUDIT_SEAL_OPTIONS } from './integrity/audit-seal.service.js';
import { AuditSealsRepository } from './integrity/audit-seals.repository.js';
import { AuditSigningKeys } from './integrity/audit-signing-keys.js';
import { AuditStorageInspector } from './maintenance/audit-storage.inspector.js';
import { IntegrityCheckService } from './maintenance/integrity-check.service.js';
import { MaintenanceJobRunner } from './maintenance/maintenance-job.runner.js';
import { PartitionManagerService } from './maintenance/partition-manager.service.js';
import { RetentionService } from './maintenance/retention.service.js';
import { MetadataSanitizer } from './metadata-sanitizer.js';
import { SecurityEventEntity } from './security-event.entity.js';
import { SecurityEventsService } from './security-events.service.js';

/**
 * The audit trail (writer side, global: every domain audits), the security-event trail, the read
 * API, the storage checks behind GET /health/audit, and the maintenance services that the
 * scheduled jobs (AuditJobsModule) and the CLI run.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity, SecurityEventEntity])],
  controllers: [AuditEventsController, AuditIntegrityController],
  providers: [
    { provide: METADATA_SANITIZER, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new MetadataSanitizer(config.auditSanitizeKeys) },
    AuditService,
    // the shared (de)activation and update write audit events: every domain that edits uses them
    Activation,
    Edits,
    SecurityEventsService,
    // The cursor's HMAC key is derived from the token-signing key: stable across restarts and
    // instances, secret, and never the signing key itself.
    {
      provide: AuditCursorCodec,
      inject: [JwtKeys],
      useFactory: (keys: JwtKeys) =>
        new AuditCursorCodec(Buffer.from(hkdfSync('sha256', keys.privateKeyPem, 'medios-admin-api', 'audit-events-cursor-v1', 32))),
    },
    AuditEventsRepository,
    AuditEventsService,
    AuditStorageInspector,
    MaintenanceJobRunner,
    PartitionManagerService,
    RetentionService,
    IntegrityCheckService,
    { provide: AuditSigningKeys, inject: [APP_CONFIG], useFactory: (config: AppConfig) => AuditSigningKeys.load(config) },
    { provide: AuditSealsRepository, inject: [SQL_DIALECT], useFactory: (dialect: SqlDialect) => new AuditSealsRepository(dialect) },
    { provide: AUDIT_SEAL_OPTIONS, useValue: DEFAULT_AUDIT_SEAL_OPTIONS },
    AuditSealService,
    AuditIntegrityService,
  ],
  exports: [
    AuditSealService,
    AuditIntegrityService,
    AuditService,
    Activation,
    Edits,
    SecurityEventsService,
    METADATA_SANITIZER,
    AuditStorageInspector,
    PartitionManagerService,
    RetentionService,
    IntegrityCheckService,
  ],
})
export class AuditModule {}
