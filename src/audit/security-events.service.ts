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

/**
 * Refusals a client can repeat as fast as it can send them, each answered at once without any
 * account's password: a refresh whose access token does not verify or whose refresh token matches
 * none, and a sign-in refused by the throttle. One address sending garbage refreshes wrote 2,500
 * rows a second (about 86 GB a day, kept five years, which the application cannot delete). Of
 * each (client address, action, reason), the first REPEATS_PER_MINUTE of a minute are written;
 * the rest of that minute are counted in security_events_suppressed_total.
 */
const REPEATABLE_REASONS: ReadonlySet<string> = new Set(['invalid_access_token', 'unknown_token', 'too_many_attempts']);
export const REPEATS_PER_MINUTE = 30;
/** Distinct keys kept per minute: beyond, the events are written (a spread-out flood is no one client's). */
const MAX_TRACKED_CLIENTS = 10_000;
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

  /**
   * `details` completes the event only when it is going to be written: what it reads (the refused
   * refresh token's family, say) costs nothing for the repeats that are only counted.
   */
  async record(event: SecurityEventInput, details?: () => Promise<Partial<SecurityEventInput>>): Promise<void> {
    if (!RESULTS.has(event.result)) throw new Error(`security event result must be success or failure (got ${String(event.result)})`);
    if (this.repeatedTooOften(event)) {
      this.count(event);
      this.metrics.securityEventsSuppressed.inc({ action: event.action, reason: event.failureReason! });
      return;
    }
    // what details reads may fail like any read: it is not counted as a failed write
    const whole = details ? { ...event, ...(await details()) } : event;
    try {
      await this.insert(whole);
    } catch (err) {
      // the request fails with it (a sign-in answered 500 gave no token): counted as a write
      // failure, not as the attempt it would have recorded
      this.metrics.auditWriteFailures.inc({ store: 'security_events' });
      throw err;
    }
    this.count(event);
  }

  /** per (client address, action, reason): the events written in the current minute */
  private repeats = new Map<string, number>();
  private repeatsMinute = 0;

  private repeatedTooOften(event: SecurityEventInput): boolean {
    if (!event.failureReason || !REPEATABLE_REASONS.has(event.failureReason)) return false;
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== this.repeatsMinute) {
      this.repeats = new Map();
      this.repeatsMinute = minute;
    }
    const key = `${this.context.ip ?? ''}\u0000${event.action}\u0000${event.failureReason}`;
    const written = this.repeats.get(key) ?? 0;
    if (written >= REPEATS_PER_MINUTE) return true;
    if (written > 0 || this.repeats.size < MAX_TRACKED_CLIENTS) this.repeats.set(key, written + 1);
    return false;
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
