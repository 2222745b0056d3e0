import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsNull, MoreThan } from 'typeorm';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { LISTED_SESSIONS, SesionDto } from './dto/session.dto.js';
import { RefreshTokensService, type RevocationReason } from './refresh-tokens.service.js';
import { SessionEntity } from './session.entity.js';

/**
 * The sessions of a user, as a sessions screen shows them, and ending one. A session is active
 * while not ended and not expired; ending one revokes its refresh tokens and refuses its access
 * tokens from the next request (RefreshTokensService keeps both in step).
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly refreshTokens: RefreshTokensService,
    private readonly securityEvents: SecurityEventsService,
    private readonly clock: Clock,
  ) {}

  /**
   * The user's active sessions, most recently used first, at most LISTED_SESSIONS of them; `current`
   * marks `currentSessionId`. Bounded because every sign-in opens a session: an account signing in
   * for hours had a list of tens of megabytes, and a few such requests at once exhausted the heap.
   */
  async listActive(userId: number, currentSessionId?: string): Promise<SesionDto[]> {
    const sessions = await this.txHost.tx.find(SessionEntity, {
      where: { userId, endedAt: IsNull(), expiresAt: MoreThan(this.clock.now()) },
      order: { lastUsedAt: 'DESC', createdAt: 'DESC', id: 'ASC' },
      take: LISTED_SESSIONS,
    });
    return sessions.map((s) => SesionDto.of(s, currentSessionId));
  }

  /**
   * Ends one of the user's sessions: 404 `no_encontrado` when the user has no session with that id
   * (unknown, or another user's — indistinguishable on purpose). Ending an already-ended one
   * changes nothing (`ended` false). Runs in the caller's transaction.
   */
  async end(userId: number, sessionId: string, reason: RevocationReason): Promise<{ ended: boolean; revokedTokens: number }> {
    const session = await this.find(userId, sessionId);
    if (session.endedAt) return { ended: false, revokedTokens: 0 };
    return this.refreshTokens.endSession(session.id, reason);
  }

  /**
   * The caller signs out of one of its sessions (any of them, the current one included): like
   * sign-out, committed in its own transaction and recorded as the security event `logout` with
   * that session's id — when this call ended it.
   */
  async endOwn(userId: number, sessionId: string): Promise<void> {
    const result = await this.txHost.withTransaction(() => this.end(userId, sessionId, 'session_ended'));
    if (!result.ended) return;
    await this.securityEvents.record({
      action: 'logout',
      result: 'success',
      actorUserId: userId,
      sessionId,
      metadata: { revokedTokens: result.revokedTokens },
    });
  }

  /** The user's session with that id, active or not; 404 when it has none. */
  async find(userId: number, sessionId: string): Promise<SessionEntity> {
    const session = await this.txHost.tx.findOneBy(SessionEntity, { id: sessionId, userId });
    if (!session) throw new DomainError('no_encontrado', `No existe la sesión ${sessionId}`);
    return session;
  }
}
