import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service.js';
import type { AuthenticatedUser } from '../auth/decorators/current-user.decorator.js';
import { DelegationPolicy } from '../auth/delegation.policy.js';
import type { SesionDto } from '../auth/dto/session.dto.js';
import { SessionsService } from '../auth/sessions.service.js';
import { UsersService } from './users.service.js';

/** An administrator's view of a user's sessions, and ending one of them (audited). */
@Injectable()
export class UserSessionsService {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditService,
    private readonly delegation: DelegationPolicy,
  ) {}

  /** The user's active sessions, most recently used first; 404 when the user does not exist. */
  async list(userId: number, caller: AuthenticatedUser): Promise<SesionDto[]> {
    await this.users.find(userId);
    return this.sessions.listActive(userId, caller.sessionId);
  }

  /**
   * Ends one session of a user: 404 when the user does not exist or has no session with that id.
   * Audited as `usuario.session_revoke` {sessionId} when this call ends it; ending an already-ended
   * session answers alike and records nothing (like every idempotent repeat). The delegation rule
   * applies: a caller cannot end the sessions of a user holding a permission it lacks.
   */
  async revoke(userId: number, sessionId: string, caller: AuthenticatedUser): Promise<void> {
    await this.users.find(userId);
    await this.sessions.find(userId, sessionId);
    await this.delegation.assertCanActOn(caller.userId, userId);
    if ((await this.sessions.end(userId, sessionId, 'session_revoked')).ended) {
      await this.audit.record('usuario.session_revoke', 'usuario', userId, { sessionId });
    }
  }
}
