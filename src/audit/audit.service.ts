import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { AuditEventEntity } from './audit-event.entity.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';

/** Thrown when an audit row cannot be attributed: the mutation must not be kept. */
export class AuditUnavailableError extends Error {
  constructor(reason: string) {
    super(`audit event cannot be written: ${reason}`);
    this.name = 'AuditUnavailableError';
  }
}

/**
 * Writes audit events inside the caller's transaction (SEED 2.5, 6.1). Fail-closed: without an
 * active transaction or an actor it throws, and a failed insert propagates, so the request's
 * transaction rolls back and nothing of the change is kept.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
  ) {}

  async record(action: string, targetType: string, targetId: string | number, metadata?: unknown): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new AuditUnavailableError('no transaction is active');
    const actorUserId = this.context.actorUserId;
    if (!actorUserId) throw new AuditUnavailableError('the request has no authenticated actor');
    await this.txHost.tx.insert(AuditEventEntity, {
      actorUserId,
      actorRoleId: null,
      ip: this.context.ip,
      userAgent: this.context.userAgent ? this.context.userAgent.slice(0, 512) : null,
      correlationId: this.context.correlationId,
      action,
      targetType,
      targetId: String(targetId),
      metadata: this.sanitizer.sanitize(metadata ?? null) as never,
    });
  }
}
