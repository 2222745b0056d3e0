import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { AppMetrics } from '../observability/metrics.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import type { AuditEventFields } from './integrity/canonical.js';
import { clippedText, eventColumns, eventValues, newEvent } from './integrity/event-rows.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';

/** Thrown when an audit row cannot be attributed: the mutation must not be kept. */
export class AuditUnavailableError extends Error {
  constructor(reason: string) {
    super(`audit event cannot be written: ${reason}`);
    this.name = 'AuditUnavailableError';
  }
}

/**
 * Writes audit events inside the caller's transaction. Fail-closed: without an
 * active transaction or an actor it throws, and a failed insert propagates, so the request's
 * transaction rolls back and nothing of the change is kept.
 */
@Injectable()
export class AuditService {
  /**
   * Every mutation writes one: a statement prepared once, without reading anything back (the id,
   * a database default, is not needed here). occurred_at is taken here rather than defaulted by
   * the database, because the row hash covers it and is computed before the insert.
   */
  private readonly insert: PreparedStatement;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
    @Inject(SQL_DIALECT) dialect: SqlDialect,
    private readonly metrics: AppMetrics,
  ) {
    this.insert = new PreparedStatement(dialect.insertStatement('audit_events', eventColumns('audit_events')), { name: 'audit_event_insert' });
  }

  /** Every failure to write the event — refused here or by the database — counts in audit_write_failures_total. */
  async record(action: string, targetType: string, targetId: string | number, metadata?: unknown): Promise<void> {
    try {
      await this.write(action, targetType, targetId, metadata);
    } catch (err) {
      this.metrics.auditWriteFailures.inc({ store: 'audit_events' });
      throw err;
    }
  }

  private async write(action: string, targetType: string, targetId: string | number, metadata: unknown): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new AuditUnavailableError('no transaction is active');
    const actorUserId = this.context.actorUserId;
    if (!actorUserId) throw new AuditUnavailableError('the request has no authenticated actor');
    const event = newEvent(this.sanitizer.sanitize(metadata ?? null));
    const fields: AuditEventFields = {
      occurredAt: event.instant,
      actorUserId,
      actorRoleId: null,
      ip: this.context.ip,
      userAgent: clippedText(this.context.userAgent, 512),
      correlationId: this.context.correlationId,
      action,
      targetType,
      targetId: String(targetId),
      metadata: event.metadata,
    };
    await this.insert.run(this.txHost.tx, eventValues('audit_events', fields, event));
  }
}
