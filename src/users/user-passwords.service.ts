import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../audit/audit.service.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { RefreshTokensService } from '../auth/refresh-tokens.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import type { ChangeOwnPasswordDto, TemporaryPasswordDto } from './dto/password.dto.js';
import { temporaryPassword } from './password-policy.js';
import { UserEntity } from './user.entity.js';
import { assertPolicy } from './users.service.js';

/**
 * The two password flows. Passwords and temporary passwords are hashed (bcrypt) and otherwise
 * only ever travel in the one request or response that carries them: never stored in clear,
 * audited or logged.
 */
@Injectable()
export class UserPasswordsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly hasher: PasswordHasher,
    private readonly refreshTokens: RefreshTokensService,
    private readonly clock: Clock,
  ) {}

  /**
   * The caller changes its own password: the current one must match (400
   * `password_actual_incorrecto`), the new one must satisfy the policy and differ from it (400
   * `password_debil`). Clears mustChangePassword and revokes the caller's refresh tokens.
   */
  async changeOwn(userId: number, dto: ChangeOwnPasswordDto): Promise<void> {
    const user = await this.findWithHash(userId);
    if (!(await this.hasher.verify(dto.currentPassword, user.passwordHash))) {
      throw new DomainError('password_actual_incorrecto', 'La contraseña actual no es correcta');
    }
    assertPolicy(dto.newPassword, user.username, 'newPassword');
    if (dto.newPassword === dto.currentPassword) {
      throw new DomainError('password_debil', 'La contraseña nueva debe ser distinta de la actual', [
        { field: 'newPassword', message: 'debe ser distinta de la actual' },
      ]);
    }
    await this.txHost.tx.update(
      UserEntity,
      { id: userId },
      { passwordHash: await this.hasher.hash(dto.newPassword), mustChangePassword: false, updatedAt: this.clock.now() },
    );
    await this.refreshTokens.revokeAllForUser(userId, 'password_changed');
    await this.audit.record('usuario.password_change', 'usuario', userId, {
      before: { mustChangePassword: user.mustChangePassword },
      after: { mustChangePassword: false },
    });
  }

  /**
   * An administrator resets a user's password to a random temporary one, returned once. Sets
   * mustChangePassword and revokes the user's refresh tokens; the audit metadata holds only the
   * target id.
   */
  async reset(userId: number): Promise<TemporaryPasswordDto> {
    await this.findWithHash(userId);
    const temporary = temporaryPassword();
    await this.txHost.tx.update(
      UserEntity,
      { id: userId },
      { passwordHash: await this.hasher.hash(temporary), mustChangePassword: true, updatedAt: this.clock.now() },
    );
    await this.refreshTokens.revokeAllForUser(userId, 'password_reset');
    await this.audit.record('usuario.password_reset', 'usuario', userId, { targetId: String(userId) });
    return { temporaryPassword: temporary };
  }

  /** The user with its hash, row locked until the transaction ends; 404 when missing. */
  private async findWithHash(id: number): Promise<UserEntity> {
    const user = await this.txHost.tx
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .setLock('pessimistic_write')
      .where('u.id = :id', { id })
      .getOne();
    if (!user) throw new NotFoundError('El usuario', id);
    return user;
  }
}
