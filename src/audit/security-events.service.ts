import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { AppMetrics } from '../observability/metrics.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import type { SecurityEventFields } from './integrity/canonical.js';
import { clippedText, eventColumns, eventValues, newEvent } from './integrity/event-rows.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';
import type { SecurityResult } from './security-event.entity.js';

export type SecurityAction =
  'login' | 'logout' | 'refresh.issue' | 'refresh.reuse_detected' | 'permission.denied' | 'password.change' | 'system.integrity_alert';

export interface SecurityEventInput {
  action: SecurityAction;
  result: SecurityResult;
  actorUserId?: number | null;
  attemptedUsername?: string | null;
  sessionId?: string | null;
  failureReason?: string | null;
  metadata?: unknown;
}

const RESULTS: ReadonlySet<string> = new Set(['success', 'failure']);
/** failure reason of a login refused by the throttle (429) */
const THROTTLED = 'too_many_attempts';

/**
 * Writes security events outside the request's transaction: it uses its own pooled connection in
 * autocommit, so a request that fails and rolls back still leaves its event. Every login attempt,
 * throttled login and permission denial passes here, so this is also where they are counted
 * (login_attempts_total, login_throttled_total, permission_denied_total).
 */
@Injectable()
export class SecurityEventsService {
  /** occurred_at and row_hash are computed here: the hash covers the instant (see AuditService). */
  private readonly insertStatement: PreparedStatement;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
    @Inject(SQL_DIALECT) dialect: SqlDialect,
    private readonly metrics: AppMetrics,
  ) {
    this.insertStatement = new PreparedStatement(dialect.insertStatement('security_events', eventColumns('security_events')));
  }

  async record(event: SecurityEventInput): Promise<void> {
    if (!RESULTS.has(event.result)) throw new Error(`security event result must be success or failure (got ${String(event.result)})`);
    this.count(event);
    try {
      await this.insert(event);
    } catch (err) {
      this.metrics.auditWriteFailures.inc({ store: 'security_events' });
      throw err;
    }
  }

  /** Label values are the codes the callers pass (a short fixed list), never what the client sent. */
  private count(event: SecurityEventInput): void {
    if (event.action === 'login') {
      this.metrics.loginAttempts.inc({ result: event.result, reason: event.failureReason ?? 'none' });
      if (event.failureReason === THROTTLED) this.metrics.loginThrottled.inc();
    } else if (event.action === 'permission.denied') {
      this.metrics.permissionDenied.inc();
    }
  }

  private async insert(event: SecurityEventInput): Promise<void> {
    const written = newEvent(this.sanitizer.sanitize(event.metadata ?? null));
    const fields: SecurityEventFields = {
      occurredAt: written.instant,
      action: event.action,
      result: event.result,
      actorUserId: event.actorUserId ?? null,
      attemptedUsername: clippedText(event.attemptedUsername, 256),
      sessionId: event.sessionId ?? null,
      failureReason: event.failureReason ?? null,
      ip: this.context.ip,
      userAgent: clippedText(this.context.userAgent, 512),
      metadata: written.metadata,
    };
    await this.insertStatement.run(this.dataSource, eventValues('security_events', fields, written));
  }
}
