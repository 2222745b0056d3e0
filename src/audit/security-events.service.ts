import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import { canonicalInstant, rowHash, type SecurityEventFields, wellFormed } from './integrity/canonical.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';
import type { SecurityResult } from './security-event.entity.js';

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

/**
 * Writes security events outside the request's transaction (SEED 6.2): it uses its own pooled
 * connection in autocommit, so a request that fails and rolls back still leaves its event.
 */
@Injectable()
export class SecurityEventsService {
  /** occurred_at and row_hash are computed here: the hash covers the instant (see AuditService). */
  private readonly insert: PreparedStatement;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
    @Inject(SQL_DIALECT) dialect: SqlDialect,
  ) {
    this.insert = new PreparedStatement(
      dialect.insertStatement('security_events', [
        'occurred_at',
        'action',
        'result',
        'actor_user_id',
        'attempted_username',
        'session_id',
        'failure_reason',
        'ip',
        'user_agent',
        'metadata',
        'row_hash',
      ]),
    );
  }

  async record(event: SecurityEventInput): Promise<void> {
    if (!RESULTS.has(event.result)) throw new Error(`security event result must be success or failure (got ${String(event.result)})`);
    const sanitized = this.sanitizer.sanitize(event.metadata ?? null);
    const metadataText = sanitized === null ? null : JSON.stringify(sanitized);
    const occurredAt = new Date();
    const row: SecurityEventFields = {
      occurredAt: canonicalInstant(occurredAt),
      action: event.action,
      result: event.result,
      actorUserId: event.actorUserId ?? null,
      attemptedUsername: event.attemptedUsername ? wellFormed(event.attemptedUsername.slice(0, 256)) : null,
      sessionId: event.sessionId ?? null,
      failureReason: event.failureReason ?? null,
      ip: this.context.ip,
      userAgent: this.context.userAgent ? wellFormed(this.context.userAgent.slice(0, 512)) : null,
      metadata: metadataText === null ? null : (JSON.parse(metadataText) as unknown),
    };
    await this.insert.run(this.dataSource, {
      occurred_at: occurredAt,
      action: row.action,
      result: row.result,
      actor_user_id: row.actorUserId,
      attempted_username: row.attemptedUsername,
      session_id: row.sessionId,
      failure_reason: row.failureReason,
      ip: row.ip,
      user_agent: row.userAgent,
      metadata: metadataText,
      row_hash: rowHash('security_events', row),
    });
  }
}
