import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { SecurityEventsService } from '../audit/security-events.service.js';
import { Clock } from '../common/context/clock.js';
import { RequestContext } from '../common/context/request-context.js';
import { DomainError } from '../common/errors/domain-error.js';
import { UserEntity } from '../users/user.entity.js';
import type { AuthenticatedUser } from './decorators/current-user.decorator.js';
import type { LoginDto, LoginResponseDto, MeDto } from './dto/login.dto.js';
import type { RefreshDto, TokenPairDto } from './dto/refresh.dto.js';
import { EffectivePermissionsService } from './effective-permissions.service.js';
import { PasswordHasher } from './password-hasher.js';
import { RefreshTokensService } from './refresh-tokens.service.js';
import { attemptsInFlight, type LoginOutcome, LoginThrottleService } from './throttle/login-throttle.service.js';
import { TokenService, userIdFromSub } from './token.service.js';

type LoginFailure = 'user_not_found' | 'user_inactive' | 'invalid_password';

/** One message for every refused refresh, so the answer never tells which check failed. */
const REFRESH_REFUSED = 'La sesión no se puede renovar; inicie sesión de nuevo';

/** Sign-in, token refresh and sign-out (docs/auth.md). */
@Injectable()
export class AuthService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly permissions: EffectivePermissionsService,
    private readonly securityEvents: SecurityEventsService,
    private readonly throttle: LoginThrottleService,
    private readonly context: RequestContext,
    private readonly clock: Clock,
  ) {}

  /**
   * Throttling first (429 without looking at the password), then one bcrypt compare whatever the
   * case, one generic 401 for the three failures; the reason goes to the security event only.
   * The username is matched exactly (case-sensitive); only an existing one counts toward the
   * per-username limits.
   */
  async login(dto: LoginDto): Promise<LoginResponseDto> {
    const found = await this.userWithHash({ username: dto.username });
    // SQL Server's `=` ignores trailing spaces, and the username column's collation ignores width:
    // `admin ` and `ａｄｍｉｎ` found `admin` there, each with a per-username throttle count of its
    // own (the count is kept per name as sent). Only the name exactly as stored is that user.
    const user = found?.username === dto.username ? found : null;
    const admission = await this.throttle.admit(dto.username, this.context.ip, user ? { userId: user.id } : undefined);
    if (!admission.admitted && admission.refusal === 'inFlight') throw attemptsInFlight();
    if (!admission.admitted) {
      await this.securityEvents.record({ action: 'login', result: 'failure', attemptedUsername: dto.username, failureReason: 'too_many_attempts' });
      throw new DomainError('demasiados_intentos', 'Demasiados intentos fallidos; intente de nuevo más tarde', undefined, {
        'retry-after': String(admission.retryAfterSeconds),
      });
    }
    let outcome: LoginOutcome = 'error';
    try {
      if (!user) {
        await this.hasher.verifyAgainstDummy(dto.password);
        outcome = 'failure';
        return await this.failLogin(dto.username, 'user_not_found');
      }
      const passwordOk = await this.hasher.verify(dto.password, user.passwordHash);
      if (!user.activo) {
        outcome = 'failure';
        return await this.failLogin(dto.username, 'user_inactive', user.id);
      }
      if (!passwordOk) {
        outcome = 'failure';
        return await this.failLogin(dto.username, 'invalid_password', user.id);
      }
      const access = await this.permissions.resolve(user.id);
      if (!access?.activo) {
        // deactivated or removed between the two reads
        outcome = 'failure';
        return await this.failLogin(dto.username, access ? 'user_inactive' : 'user_not_found', user.id);
      }

      const previousLogin = user.ultimoLogin;
      // A hash of another cost (BCRYPT_ROUNDS changed since it was made) is replaced by one of the
      // configured cost in the same UPDATE: until then its compares take another time than the
      // dummy's of an unknown username, and response times would tell who exists.
      const rehashed = this.hasher.needsRehash(user.passwordHash) ? await this.hasher.hash(dto.password) : undefined;
      const open = (verifiedHash: string, replacement?: string) =>
        this.txHost.withTransaction(async () => {
          // Only while the user is still active with the password just verified: a deactivation,
          // password change or reset that committed while the hash was compared would not revoke the
          // session opened here. Those writes update this row before they revoke the user's
          // sessions, so either this UPDATE waits for them and then matches nothing, or they wait
          // for this transaction and revoke its session with the others.
          const claimed = await this.txHost.tx.update(
            UserEntity,
            { id: user.id, activo: true, passwordHash: verifiedHash },
            replacement ? { ultimoLogin: this.clock.now(), passwordHash: replacement } : { ultimoLogin: this.clock.now() },
          );
          return claimed.affected ? this.refreshTokens.issue(user.id) : null;
        });
      let refresh = await open(user.passwordHash, rehashed);
      if (!refresh) {
        const current = await this.userWithHash({ id: user.id });
        // another sign-in of this user replaced the old-cost hash meanwhile: the password is the
        // same, and the hash it wrote is kept (replacing it again would fail a third such sign-in)
        if (
          rehashed &&
          current?.activo &&
          !this.hasher.needsRehash(current.passwordHash) &&
          (await this.hasher.verify(dto.password, current.passwordHash))
        )
          refresh = await open(current.passwordHash);
        if (!refresh) {
          outcome = 'failure';
          return await this.failLogin(dto.username, current?.activo ? 'invalid_password' : current ? 'user_inactive' : 'user_not_found', user.id);
        }
      }
      const accessToken = this.tokens.signAccessToken({ userId: user.id, username: user.username, rol: access.rol, sessionId: refresh.familyId });
      outcome = 'success';
      await this.securityEvents.record({
        action: 'login',
        result: 'success',
        actorUserId: user.id,
        attemptedUsername: user.username,
        sessionId: refresh.familyId,
      });
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
    } finally {
      await this.throttle.settle(admission.attempt, outcome);
    }
  }

  /**
   * Refresh (docs/auth.md, "Refresh: rotation and reuse detection"): the access token must carry a valid signature, issuer, audience
   * and `kid` (its expiry is ignored); the refresh token is then consumed in one transaction with
   * its row locked. The transaction commits before the answer, so a family revoked because a
   * revoked token came back stays revoked although the answer is 401.
   */
  async refresh(dto: RefreshDto): Promise<TokenPairDto> {
    const claims = this.tokens.verifyAccessToken(dto.accessToken, { ignoreExpiration: true });
    const subUserId = claims ? userIdFromSub(claims.sub) : undefined;
    if (subUserId === undefined) {
      // the refresh token is not touched, but the record names whose session it would have
      // renewed, and whom the (unverified) access token claims to be
      await this.securityEvents.record({ action: 'refresh.issue', result: 'failure', failureReason: 'invalid_access_token' }, async () => {
        const family = await this.refreshTokens.familyOf(dto.refreshToken);
        const sub = this.tokens.presentedSub(dto.accessToken);
        return {
          actorUserId: family?.ownerUserId ?? null,
          sessionId: family?.familyId ?? null,
          metadata: family ? { familyId: family.familyId, sub } : { sub },
        };
      });
      throw new DomainError('refresh_invalido', REFRESH_REFUSED);
    }

    const result = await this.txHost.withTransaction(() => this.refreshTokens.rotate(dto.refreshToken, subUserId));

    if (!result.ok) {
      // the actor is whose session it is (the token family's owner); the presenting token's `sub`
      // may name someone else, and goes to the metadata
      const presented = { sub: String(subUserId) };
      if (result.reason === 'reuse_detected') {
        await this.securityEvents.record({
          action: 'refresh.reuse_detected',
          result: 'failure',
          actorUserId: result.ownerUserId ?? null,
          sessionId: result.familyId,
          failureReason: 'reuse_detected',
          metadata: { familyId: result.familyId, revokedTokens: result.revoked, ...presented },
        });
      } else {
        await this.securityEvents.record({
          action: 'refresh.issue',
          result: 'failure',
          actorUserId: result.ownerUserId ?? null,
          sessionId: result.familyId ?? null,
          failureReason: result.reason,
          metadata: result.familyId ? { familyId: result.familyId, ...presented } : presented,
        });
      }
      throw new DomainError('refresh_invalido', REFRESH_REFUSED);
    }

    const accessToken = this.tokens.signAccessToken({
      userId: result.user.id,
      username: result.user.username,
      rol: result.user.rol,
      sessionId: result.familyId,
    });
    await this.securityEvents.record({
      action: 'refresh.issue',
      result: 'success',
      actorUserId: result.user.id,
      sessionId: result.familyId,
      metadata: { familyId: result.familyId },
    });
    return { accessToken, refreshToken: result.token, tokenType: 'Bearer', expiresIn: this.tokens.accessTtlSeconds };
  }

  /**
   * Ends every session of the caller (revokes all its refresh tokens). Idempotent: a token whose
   * session a sign-out has already ended — a repeat — is still answered, but changes nothing, so a
   * copy of an old access token cannot end the sessions its owner opened since. A token whose
   * session ended otherwise (revoked by an administrator, a password change, reuse of a refresh
   * token…) is refused like on every other route: a 204 would say the caller signed out
   * everywhere while the sessions opened since stay open.
   */
  async logout(caller: Pick<AuthenticatedUser, 'userId' | 'sessionId' | 'sessionActive'>): Promise<void> {
    if (!caller.sessionActive && !(await this.refreshTokens.endedBySignOut(caller.sessionId)))
      throw new DomainError('no_autenticado', 'Se requiere un token de acceso válido');
    const revoked = caller.sessionActive ? await this.txHost.withTransaction(() => this.refreshTokens.revokeAllForUser(caller.userId, 'logout')) : 0;
    await this.securityEvents.record({
      action: 'logout',
      result: 'success',
      actorUserId: caller.userId,
      sessionId: caller.sessionId,
      metadata: { revokedTokens: revoked },
    });
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

  /** The user with its password hash (a column the entity leaves out of every other read). */
  private userWithHash(where: { username: string } | { id: number }): Promise<UserEntity | null> {
    const [column, value] = 'id' in where ? ['id', where.id] : ['username', where.username];
    return this.txHost.tx
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where(`u.${column} = :value`, { value })
      .getOne();
  }

  private async failLogin(username: string, reason: LoginFailure, userId?: number): Promise<never> {
    await this.securityEvents.record({
      action: 'login',
      result: 'failure',
      actorUserId: userId ?? null,
      attemptedUsername: username,
      failureReason: reason,
    });
    throw new DomainError('credenciales_invalidas', 'Usuario o contraseña incorrectos');
  }
}
