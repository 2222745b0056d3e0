import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { UserEntity } from '../users/user.entity.js';
import type { LoginDto, LoginResponseDto, MeDto } from './dto/login.dto.js';
import { EffectivePermissionsService } from './effective-permissions.service.js';
import { PasswordHasher } from './password-hasher.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { TokenService } from './token.service.js';

type LoginFailure = 'user_not_found' | 'user_inactive' | 'invalid_password';

/** Sign-in and sign-out (SEED 3.1, 4.1, 5). */
@Injectable()
export class AuthService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly permissions: EffectivePermissionsService,
    private readonly securityEvents: SecurityEventsService,
    private readonly clock: Clock,
  ) {}

  async login(dto: LoginDto): Promise<LoginResponseDto> {
    const user = await this.txHost.tx
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('u.username = :username', { username: dto.username })
      .getOne();

    if (!user) {
      await this.hasher.verifyAgainstDummy(dto.password);
      return this.failLogin(dto.username, 'user_not_found');
    }
    const passwordOk = await this.hasher.verify(dto.password, user.passwordHash);
    if (!user.activo) return this.failLogin(dto.username, 'user_inactive', user.id);
    if (!passwordOk) return this.failLogin(dto.username, 'invalid_password', user.id);

    const access = await this.permissions.resolve(user.id);
    if (!access) return this.failLogin(dto.username, 'user_not_found');
    const previousLogin = user.ultimoLogin;

    const refresh = await this.txHost.withTransaction(async () => {
      await this.txHost.tx.update(UserEntity, { id: user.id }, { ultimoLogin: this.clock.now() });
      return this.refreshTokens.issue(user.id);
    });
    const accessToken = this.tokens.signAccessToken({ userId: user.id, username: user.username, rol: access.rol });
    await this.securityEvents.record({ action: 'login', result: 'success', actorUserId: user.id, attemptedUsername: user.username, sessionId: refresh.familyId });
    return {
      accessToken,
      refreshToken: refresh.token,
      tokenType: 'Bearer',
      expiresIn: this.tokens.accessTtlSeconds,
      username: user.username,
      mustChangePassword: user.mustChangePassword,
      ultimoLogin: previousLogin ? previousLogin.toISOString() : null,
      permisos: access.efectivos,
    };
  }

  /** Revokes every active refresh token of the caller; idempotent. */
  async logout(userId: number): Promise<void> {
    await this.txHost.withTransaction(() => this.refreshTokens.revokeAllForUser(userId, 'logout'));
    await this.securityEvents.record({ action: 'logout', result: 'success', actorUserId: userId });
  }

  async me(userId: number): Promise<MeDto> {
    const user = await this.txHost.tx.getRepository(UserEntity).findOneBy({ id: userId });
    const access = await this.permissions.resolve(userId);
    if (!user || !access) throw new DomainError('no_autenticado', 'Se requiere un token de acceso válido');
    return {
      id: user.id,
      username: user.username,
      nombre: user.nombre,
      apellido: user.apellido,
      email: user.email,
      rol: access.rol,
      mustChangePassword: user.mustChangePassword,
      permisos: access.efectivos,
    };
  }

  private async failLogin(username: string, reason: LoginFailure, userId?: number): Promise<never> {
    await this.securityEvents.record({ action: 'login', result: 'failure', actorUserId: userId ?? null, attemptedUsername: username, failureReason: reason });
    throw new DomainError('credenciales_invalidas', 'Usuario o contraseña incorrectos');
  }
}
