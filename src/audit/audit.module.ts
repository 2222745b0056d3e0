import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { AuditEventEntity } from './audit-event.entity.js';
import { AuditService } from './audit.service.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import { MetadataSanitizer } from './metadata-sanitizer.js';
import { SecurityEventEntity } from './security-event.entity.js';
import { SecurityEventsService } from './security-events.service.js';

/** The audit trail (writer side) and the security-event trail. Global: every domain audits. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity, SecurityEventEntity])],
  providers: [
    { provide: METADATA_SANITIZER, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new MetadataSanitizer(config.auditSanitizeKeys) },
    AuditService,
    SecurityEventsService,
  ],
  exports: [AuditService, SecurityEventsService, METADATA_SANITIZER],
})
export class AuditModule {}
