import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { RequestContext } from '../common/context/request-context.js';
import { METADATA_SANITIZER } from './audit.tokens.js';
import type { MetadataSanitizer } from './metadata-sanitizer.js';
import { SecurityEventEntity, type SecurityResult } from './security-event.entity.js';

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
 * Writes security events outside the request's transaction (SEED 6.2): it uses its own pooled
 * connection in autocommit, so a request that fails and rolls back still leaves its event.
 */
@Injectable()
export class SecurityEventsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly context: RequestContext,
    @Inject(METADATA_SANITIZER) private readonly sanitizer: MetadataSanitizer,
  ) {}

  async record(event: SecurityEventInput): Promise<void> {
    if (!RESULTS.has(event.result)) throw new Error(`security event result must be success or failure (got ${String(event.result)})`);
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
