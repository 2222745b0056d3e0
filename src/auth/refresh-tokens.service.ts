import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type EntityManager, IsNull, type SelectQueryBuilder } from 'typeorm';
import { clippedText } from '../audit/integrity/event-rows.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { Clock } from '../common/context/clock.js';
import { RequestContext } from '../common/context/request-context.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { SessionEntity } from './session.entity.js';
import { UserEntity } from '../users/user.entity.js';

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/**
 * The token's row, locked until the transaction ends: TypeORM's pessimistic_write writes
 * `SELECT … FOR UPDATE` on PostgreSQL and `… WITH (XLOCK, ROWLOCK)` on SQL Server (see the spec
 * beside this file), and refuses to run outside a transaction.
 */
export function tokenForUpdate(manager: EntityManager, tokenHash: string): SelectQueryBuilder<RefreshTokenEntity> {
  return manager
    .getRepository(RefreshTokenEntity)
    .createQueryBuilder('rt')
    .setLock('pessimistic_write')
    .where('rt.tokenHash = :tokenHash', { tokenHash });
}

/** Locks one row by its id until the transaction ends: shared (`pessimistic_read`) or exclusive. */
function lockById(
  manager: EntityManager,
  entity: typeof UserEntity | typeof SessionEntity,
  id: number | string,
  mode: 'pessimistic_read' | 'pessimistic_write',
): Promise<unknown> {
  return manager.getRepository(entity).createQueryBuilder('r').select('r.id').setLock(mode).where('r.id = :id', { id }).getOne();
}

export type RevocationReason =
  | 'logout'
  | 'rotated'
  | 'reuse_detected'
  | 'user_updated'
  | 'user_deactivated'
  | 'password_changed'
  | 'password_reset'
  | 'session_ended'
  | 'session_revoked';

/** Why a presented refresh token was refused (the reason goes to the security event only). */
export type RefreshRefusal = 'unknown_token' | 'reuse_detected' | 'token_expired' | 'sub_mismatch' | 'user_not_found' | 'user_inactive';

export type RotationResult =
  | { ok: true; token: string; familyId: string; user: { id: number; username: string; rol: string } }
  /** `ownerUserId`: the presented token's owner (its family's), when the token is known */
  | { ok: false; reason: RefreshRefusal; familyId?: string; ownerUserId?: number; revoked?: number };

/**
 * Issues, rotates and revokes refresh tokens, and keeps their sessions (one per family, the
 * access token's `sid`) in step: every path that revokes a family's last active token ends its
 * session in the same transaction, and nothing else ends one. Stores only the tokens' hashes.
 * Runs in the caller's transaction when one is active.
 */
@Injectable()
export class RefreshTokensService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly context: RequestContext,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A new token for the user: a new family — a new session — unless rotating within one, which
   * marks the session used now and slides its expiry to the new token's. Returns the plain token
   * (never stored) and the family id.
   */
  async issue(userId: number, family?: { familyId: string; parentId: number }): Promise<{ token: string; familyId: string }> {
    const token = randomBytes(32).toString('base64url');
    const familyId = family?.familyId ?? randomUUID();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.config.refreshTokenDays * 86_400_000);
    const client = { clientIp: this.context.ip, userAgent: clippedText(this.context.userAgent, 512) };
    if (family) {
      await this.txHost.tx.update(SessionEntity, { id: familyId }, { lastUsedAt: now, expiresAt, ...client });
    } else {
      await this.txHost.tx.insert(SessionEntity, { id: familyId, userId, createdAt: now, lastUsedAt: now, expiresAt, endedAt: null, ...client });
    }
    await this.txHost.tx.insert(RefreshTokenEntity, {
      tokenHash: hashRefreshToken(token),
      userId,
      familyId,
      parentId: family?.parentId ?? null,
      expiresAt,
      createdAt: now,
      ...client,
    });
    return { token, familyId };
  }

  /**
   * The refresh rules of docs/auth.md ("Refresh: rotation and reuse detection"): consumes a presented refresh token for the user named by the
   * (signature-checked) access token. Must run inside a transaction: the token's row is locked
   * (SELECT … FOR UPDATE / WITH (XLOCK, ROWLOCK)) until commit, so concurrent presentations of
   * one token are serialized and only the first can rotate it; the others then find it revoked
   * and are treated as reuse. The caller commits before answering, so a family revoked on reuse
   * stays revoked although the request answers 401.
   */
  async rotate(presented: string, subUserId: number): Promise<RotationResult> {
    if (!this.txHost.isTransactionActive()) throw new Error('refresh-token rotation must run inside a transaction');
    const tx = this.txHost.tx;
    const tokenHash = hashRefreshToken(presented);
    // Rows are locked in the order every writer of them takes: the user's (shared here; a change
    // of the user locks it first), then the session's, then the token's (revokeAllForUser,
    // endSession), so a refresh racing a sign-out or a change of the user waits for it instead of
    // deadlocking with it (one side answered 503). The new token's foreign key would take the
    // user's row last otherwise. Found unlocked first to name the rows.
    const named = await tx.findOne(RefreshTokenEntity, { where: { tokenHash }, select: { id: true, familyId: true, userId: true } });
    if (!named) return { ok: false, reason: 'unknown_token' };
    await lockById(tx, UserEntity, named.userId, 'pessimistic_read');
    await lockById(tx, SessionEntity, named.familyId, 'pessimistic_write');
    const token = await tokenForUpdate(tx, tokenHash).getOne();
    if (!token) return { ok: false, reason: 'unknown_token' };
    // SQL Server hands uniqueidentifier values back in upper case: keep the ids of events uniform
    const familyId = token.familyId.toLowerCase();

    if (token.revokedAt) {
      // a revoked token presented again: whoever holds the chain is not alone — end the session
      const revoked = await this.revokeFamily(familyId, 'reuse_detected');
      return { ok: false, reason: 'reuse_detected', familyId, ownerUserId: token.userId, revoked };
    }
    const now = this.clock.now();
    const refused = (reason: RefreshRefusal) => ({ ok: false as const, reason, familyId, ownerUserId: token.userId });
    if (token.expiresAt.getTime() <= now.getTime()) return refused('token_expired');
    if (token.userId !== subUserId) return refused('sub_mismatch');

    const owner: { username: string; activo: boolean | number; rol: string } | undefined = await tx
      .createQueryBuilder()
      .select(['u.username AS username', 'u.activo AS activo', 'r.codigo AS rol'])
      .from('users', 'u')
      .innerJoin('roles', 'r', 'r.id = u.role_id')
      .where('u.id = :id', { id: token.userId })
      .getRawOne();
    if (!owner) return refused('user_not_found');
    if (!owner.activo) return refused('user_inactive');

    // conditional on the row still being active: with the lock this always holds; it is the
    // second guard should an engine ever hand us a stale version of the locked row
    const rotated = await tx.update(RefreshTokenEntity, { id: token.id, revokedAt: IsNull() }, { revokedAt: now, revokedReason: 'rotated' });
    if (rotated.affected !== 1) {
      const revoked = await this.revokeFamily(familyId, 'reuse_detected');
      return { ok: false, reason: 'reuse_detected', familyId, ownerUserId: token.userId, revoked };
    }
    const next = await this.issue(token.userId, { familyId, parentId: token.id });
    return { ok: true, token: next.token, familyId, user: { id: token.userId, username: owner.username, rol: owner.rol } };
  }

  /** The session (family) and owner of a presented token, read without locking or changing it; undefined when unknown. */
  async familyOf(presented: string): Promise<{ familyId: string; ownerUserId: number } | undefined> {
    const token = await this.txHost.tx.findOne(RefreshTokenEntity, {
      where: { tokenHash: hashRefreshToken(presented) },
      select: { id: true, familyId: true, userId: true },
    });
    return token ? { familyId: token.familyId.toLowerCase(), ownerUserId: token.userId } : undefined;
  }

  /**
   * Revokes every active refresh token of a user and ends all its sessions (logout, user
   * update/deactivation, password flows): its access tokens are refused from the next request.
   * Sessions before tokens, as rotate locks them.
   */
  async revokeAllForUser(userId: number, reason: RevocationReason): Promise<number> {
    const now = this.clock.now();
    const tx = this.txHost.tx;
    await tx.update(SessionEntity, { userId, endedAt: IsNull() }, { endedAt: now, endedReason: reason });
    const result = await tx.update(RefreshTokenEntity, { userId, revokedAt: IsNull() }, { revokedAt: now, revokedReason: reason });
    return result.affected ?? 0;
  }

  /**
   * Ends one session (refresh-token family) and revokes its still-active tokens. `ended` is false
   * when it had already ended (or another transaction ended it first), so a caller records one
   * event per session actually ended.
   */
  async endSession(familyId: string, reason: RevocationReason): Promise<{ ended: boolean; revokedTokens: number }> {
    const now = this.clock.now();
    const tx = this.txHost.tx;
    const session = await tx.update(SessionEntity, { id: familyId, endedAt: IsNull() }, { endedAt: now, endedReason: reason });
    const tokens = await tx.update(RefreshTokenEntity, { familyId, revokedAt: IsNull() }, { revokedAt: now, revokedReason: reason });
    return { ended: session.affected === 1, revokedTokens: tokens.affected ?? 0 };
  }

  /** Whether the session was ended by its user signing out (logout, or ending it from a session list). */
  async endedBySignOut(familyId: string): Promise<boolean> {
    const session = await this.txHost.tx.findOne(SessionEntity, { where: { id: familyId }, select: { id: true, endedReason: true } });
    return session?.endedReason === 'logout' || session?.endedReason === 'session_ended';
  }

  /** Revokes every still-active token of one chain and ends its session; answers how many tokens. */
  private async revokeFamily(familyId: string, reason: RevocationReason): Promise<number> {
    return (await this.endSession(familyId, reason)).revokedTokens;
  }
}
