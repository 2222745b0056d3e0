import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../audit/audit.service.js';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { DelegationPolicy } from '../auth/delegation.policy.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { RefreshTokensService } from '../auth/refresh-tokens.service.js';
import { attemptsInFlight, type LoginOutcome, LoginThrottleService } from '../auth/throttle/login-throttle.service.js';
import { Clock } from '../common/context/clock.js';
import { RequestContext } from '../common/context/request-context.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import type { ChangeOwnPasswordDto, TemporaryPasswordDto } from './dto/password.dto.js';
import { PasswordPolicy } from './password-policy.service.js';
import { UserEntity } from './user.entity.js';

/**
 * The password flows. Passwords and temporary passwords are hashed (bcrypt) and otherwise only
 * ever travel in the one request or response that carries them: never stored in clear, audited or
 * logged.
 *
 * Hashing and comparing never happen while the request holds a database connection, a transaction
 * or a row lock (their routes run without the per-request transaction): each flow reads what it
 * needs, does the slow bcrypt work, then opens a short transaction that checks again under a lock
 * and writes. A storm of password requests therefore waits in the hashing queue, never in the
 * connection pool every other request needs.
 */
@Injectable()
export class UserPasswordsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly securityEvents: SecurityEventsService,
    private readonly hasher: PasswordHasher,
    private readonly passwordPolicy: PasswordPolicy,
    private readonly delegation: DelegationPolicy,
    private readonly throttle: LoginThrottleService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly context: RequestContext,
    private readonly clock: Clock,
  ) {}

  /**
   * The caller changes its own password. A wrong `currentPassword` is 400
   * `password_actual_incorrecto`, counts toward the caller's sign-in throttle like a failed login
   * (beyond it: 429 `demasiados_intentos` without comparing) and records the security event
   * `password.change` failure `invalid_password`. The new password must satisfy the policy and
   * differ from the current one (400 `password_debil`). Clears mustChangePassword, revokes the
   * caller's refresh tokens, records `password.change` success.
   */
  async changeOwn(userId: number, dto: ChangeOwnPasswordDto): Promise<void> {
    const user = await this.findWithHash(userId);
    await this.verifyCurrent(user, dto.currentPassword);
    await this.passwordPolicy.assertAcceptable(dto.newPassword, user, 'newPassword');
    if (dto.newPassword === dto.currentPassword) {
      throw new DomainError('password_debil', 'La contraseña nueva debe ser distinta de la actual', [
        { field: 'newPassword', message: 'debe ser distinta de la actual' },
      ]);
    }
    const passwordHash = await this.hasher.hash(dto.newPassword);

    await this.txHost.withTransaction(async () => {
      const current = await this.findWithHash(userId);
      // changed (or reset) while this request was hashing: what it proved is no longer the password
      if (current.passwordHash !== user.passwordHash) throw wrongCurrentPassword();
      await this.txHost.tx.update(UserEntity, { id: userId }, { passwordHash, mustChangePassword: false, updatedAt: this.clock.now() });
      await this.refreshTokens.revokeAllForUser(userId, 'password_changed');
      await this.audit.record('usuario.password_change', 'usuario', userId, {
        before: { mustChangePassword: current.mustChangePassword },
        after: { mustChangePassword: false },
      });
    });
    await this.securityEvents.record({ action: 'password.change', result: 'success', actorUserId: userId, attemptedUsername: user.username });
  }

  /**
   * An administrator resets another user's password to a random temporary one, returned once.
   * Refusals: 404, then 403 `privilegio_insuficiente` for the caller's own password (it changes it
   * with PUT /users/me/password) or a user holding a permission the caller lacks. Sets
   * mustChangePassword and revokes the user's refresh tokens; the audit metadata holds only the
   * target id.
   */
  reset(userId: number, callerId: number): Promise<TemporaryPasswordDto> {
    return this.resetTo(userId, async () => {
      this.delegation.assertNotSelf(callerId, userId, 'password_reset');
      await this.delegation.assertCanActOn(callerId, userId);
    });
  }

  /** Operator recovery (the CLI): the same reset, outside the delegation rule. */
  resetByOperator(userId: number): Promise<TemporaryPasswordDto> {
    return this.resetTo(userId, async () => {});
  }

  private async resetTo(userId: number, authorize: () => Promise<void>): Promise<TemporaryPasswordDto> {
    // refusals before the hash cost no hash; the transaction checks again and decides
    const user = await this.findWithHash(userId);
    await authorize();
    const temporary = await this.passwordPolicy.temporaryFor(user);
    const passwordHash = await this.hasher.hash(temporary);

    await this.txHost.withTransaction(async () => {
      await this.findWithHash(userId);
      await authorize();
      await this.txHost.tx.update(UserEntity, { id: userId }, { passwordHash, mustChangePassword: true, updatedAt: this.clock.now() });
      await this.refreshTokens.revokeAllForUser(userId, 'password_reset');
      await this.audit.record('usuario.password_reset', 'usuario', userId, { targetId: String(userId) });
    });
    return { temporaryPassword: temporary };
  }

  /** Throttled like a sign-in of the caller from this client IP; the compare runs with nothing held. */
  private async verifyCurrent(user: UserEntity, currentPassword: string): Promise<void> {
    const admission = await this.throttle.admit(user.username, this.context.ip, { userId: user.id });
    if (!admission.admitted && admission.refusal === 'inFlight') throw attemptsInFlight();
    if (!admission.admitted) {
      await this.securityEvents.record({
        action: 'password.change',
        result: 'failure',
        actorUserId: user.id,
        attemptedUsername: user.username,
        failureReason: 'too_many_attempts',
      });
      throw new DomainError('demasiados_intentos', 'Demasiados intentos fallidos; intente de nuevo más tarde', undefined, {
        'retry-after': String(admission.retryAfterSeconds),
      });
    }
    let outcome: LoginOutcome = 'error';
    try {
      if (await this.hasher.verify(currentPassword, user.passwordHash)) {
        outcome = 'success';
        return;
      }
      outcome = 'failure';
    } finally {
      await this.throttle.settle(admission.attempt, outcome);
    }
    await this.securityEvents.record({
      action: 'password.change',
      result: 'failure',
      actorUserId: user.id,
      attemptedUsername: user.username,
      failureReason: 'invalid_password',
    });
    throw wrongCurrentPassword();
  }

  /** The user with its hash, 404 when missing; inside a transaction its row stays locked until the end. */
  private async findWithHash(id: number): Promise<UserEntity> {
    const qb = this.txHost.tx.getRepository(UserEntity).createQueryBuilder('u').addSelect('u.passwordHash').where('u.id = :id', { id });
    if (this.txHost.isTransactionActive()) qb.setLock('pessimistic_write');
    const user = await qb.getOne();
    if (!user) throw new NotFoundError('El usuario', id);
    return user;
  }
}

function wrongCurrentPassword(): DomainError {
  return new DomainError('password_actual_incorrecto', 'La contraseña actual no es correcta');
}
