import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { In, LessThanOrEqual } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { LoginFailureEntity, type ThrottleScope } from './login-failure.entity.js';

interface Counted {
  scope: ThrottleScope;
  subject: string;
  /** the row this attempt wrote for the scope */
  id: number;
}

/** A sign-in attempt that passed the limits; tell the throttle how it ended. */
export interface LoginAttempt {
  readonly rows: readonly Counted[];
}

export type LoginOutcome = 'success' | 'failure' | 'error';

export type Admission = { admitted: true; attempt: LoginAttempt } | { admitted: false; retryAfterSeconds: number };

/** The per-user key: usernames differing only in case share one counter. */
export function throttleKeyOfUsername(username: string): string {
  return username.toLowerCase().slice(0, 256);
}

/** Seconds until the blocking failure (at `blockingAt`) leaves the window; at least 1. */
export function retryAfterSeconds(blockingAt: Date, windowSeconds: number, now: Date): number {
  return Math.max(1, Math.ceil((blockingAt.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
}

/**
 * Login throttling shared by every instance through the database (table login_failures):
 * at most LOGIN_MAX_FAILURES_PER_USER failures per username and LOGIN_MAX_FAILURES_PER_IP per
 * client IP inside LOGIN_WINDOW_SECONDS (a sliding window).
 *
 * Race-tolerant without a long transaction: an attempt first writes its own row per scope
 * (autocommit), then counts the rows written before it. Concurrent attempts therefore see each
 * other, so a burst of parallel guesses cannot slip past the limit while the first ones are still
 * hashing. A refused attempt removes its rows (a 429 never extends a lock-out), a failed one keeps
 * them, a successful one removes its own and clears the username's rows. Rows older than the
 * window are deleted at every attempt, so the table only holds the current window.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Admits the attempt, or says how long to wait when the username or the IP is over its limit. */
  async admit(username: string, ip: string | null): Promise<Admission> {
    const { maxFailuresPerUser, maxFailuresPerIp, windowSeconds } = this.config.login;
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - windowSeconds * 1000);
    const tx = this.txHost.tx;
    await tx.delete(LoginFailureEntity, { occurredAt: LessThanOrEqual(windowStart) });

    const scopes: Array<{ scope: ThrottleScope; subject: string; max: number }> = [
      { scope: 'user', subject: throttleKeyOfUsername(username), max: maxFailuresPerUser },
    ];
    if (ip) scopes.push({ scope: 'ip', subject: ip.slice(0, 256), max: maxFailuresPerIp });
    const inserted = await tx.insert(
      LoginFailureEntity,
      scopes.map(({ scope, subject }) => ({ scope, subject, occurredAt: now })),
    );
    const rows = scopes.map((s, i) => ({ scope: s.scope, subject: s.subject, id: Number(inserted.identifiers[i]?.id) }));

    let wait = 0;
    for (const [i, s] of scopes.entries()) {
      // the max-th most recent earlier row: while it is inside the window, the limit is reached
      const [blocking] = await tx
        .getRepository(LoginFailureEntity)
        .createQueryBuilder('f')
        .where('f.scope = :scope AND f.subject = :subject', { scope: s.scope, subject: s.subject })
        .andWhere('f.occurredAt > :windowStart AND f.id < :id', { windowStart, id: rows[i]!.id })
        .orderBy('f.occurredAt', 'DESC')
        .addOrderBy('f.id', 'DESC')
        .skip(s.max - 1)
        .take(1)
        .getMany();
      if (blocking) wait = Math.max(wait, retryAfterSeconds(blocking.occurredAt, windowSeconds, now));
    }
    if (wait > 0) {
      await this.forget(rows.map((r) => r.id));
      return { admitted: false, retryAfterSeconds: wait };
    }
    return { admitted: true, attempt: { rows } };
  }

  /**
   * Records how an admitted attempt ended. A failure keeps its rows (they count until they leave
   * the window); a success removes them and clears the username's count; a fault of ours (not a
   * wrong credential) removes them, since it says nothing about the caller.
   */
  async settle(attempt: LoginAttempt, outcome: LoginOutcome): Promise<void> {
    if (outcome === 'failure') return;
    await this.forget(attempt.rows.map((r) => r.id));
    if (outcome !== 'success') return;
    for (const r of attempt.rows) {
      if (r.scope === 'user') await this.txHost.tx.delete(LoginFailureEntity, { scope: 'user', subject: r.subject });
    }
  }

  private async forget(ids: number[]): Promise<void> {
    if (ids.length) await this.txHost.tx.delete(LoginFailureEntity, { id: In(ids) });
  }
}
