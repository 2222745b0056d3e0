import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { AppMetrics } from '../observability/metrics.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';
import { SecurityEventEntity, type SecurityResult } from './security-event.entity.js';

export type SecurityAction = 'login' | 'logout' | 'refresh.issue' | 'refresh.reuse_detected' | 'permission.denied' | 'system.integrity_alert';

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
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
    private readonly metrics: AppMetrics,
  ) {}

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
    await this.dataSource.manager.insert(SecurityEventEntity, {
      action: event.action,
      result: event.result,
      actorUserId: event.actorUserId ?? null,
      attemptedUsername: event.attemptedUsername ? event.attemptedUsername.slice(0, 256) : null,
      sessionId: event.sessionId ?? null,
      failureReason: event.failureReason ?? null,
      ip: this.context.ip,
      userAgent: this.context.userAgent ? this.context.userAgent.slice(0, 512) : null,
      metadata: this.sanitizer.sanitize(event.metadata ?? null) as never,
    });
  }
}
