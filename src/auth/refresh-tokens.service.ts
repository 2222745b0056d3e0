import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { IsNull } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { Clock } from '../common/context/clock.js';
import { RequestContext } from '../common/context/request-context.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

export type RevocationReason = 'logout' | 'rotated' | 'reuse_detected' | 'user_updated' | 'user_deactivated' | 'password_changed' | 'password_reset';

/** Issues and revokes refresh tokens; stores only their hashes. Runs in the caller's transaction when one is active. */
@Injectable()
export class RefreshTokensService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly context: RequestContext,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A new token for the user: a new family unless rotating within one. Returns the plain token (never stored). */
  async issue(userId: number, family?: { familyId: string; parentId: number }): Promise<{ token: string; familyId: string }> {
    const token = randomBytes(32).toString('base64url');
    const familyId = family?.familyId ?? randomUUID();
    const now = this.clock.now();
    await this.txHost.tx.insert(RefreshTokenEntity, {
      tokenHash: hashRefreshToken(token),
      userId,
      familyId,
      parentId: family?.parentId ?? null,
      expiresAt: new Date(now.getTime() + this.config.refreshTokenDays * 86_400_000),
      createdAt: now,
      clientIp: this.context.ip,
      userAgent: this.context.userAgent ? this.context.userAgent.slice(0, 512) : null,
    });
    return { token, familyId };
  }

  /** Revokes every active refresh token of a user (logout, user update/deactivation, password flows). */
  async revokeAllForUser(userId: number, reason: RevocationReason): Promise<number> {
    const result = await this.txHost.tx.update(RefreshTokenEntity, { userId, revokedAt: IsNull() }, { revokedAt: this.clock.now(), revokedReason: reason });
    return result.affected ?? 0;
  }
}
