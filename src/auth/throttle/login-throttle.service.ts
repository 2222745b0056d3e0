import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { In, LessThanOrEqual } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { AppMetrics } from '../../observability/metrics.js';
import { EffectivePermissionsService } from '../effective-permissions.service.js';
import { LoginFailureEntity, type ThrottleScope } from './login-failure.entity.js';
import { PERMISSIONS } from '../permissions.js';

/** What a row counts: failures of one (username, IP), of one username from any IP, of one IP. */
type Count = 'pair' | 'global' | 'ip';

interface Counted {
  count: Count;
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

/**
 * Refused: `throttled` when a limit is reached by failures (429 for `retryAfterSeconds`), or
 * `inFlight` when it is reached only counting attempts not yet ended, which settle within
 * moments (503 with a short Retry-After, see attemptsInFlight).
 */
export type Admission = { admitted: true; attempt: LoginAttempt } | { admitted: false; refusal: 'throttled' | 'inFlight'; retryAfterSeconds: number };

/**
 * Attempts in flight that fill a limit are waited for, up to IN_FLIGHT_WAIT_MS in pauses doubling
 * from FIRST_PAUSE_MS (a few reads each), then the attempt is decided on what they left: a 429 if
 * they failed, admitted if they succeeded. Still in flight after that, it is refused for a moment
 * (503, Retry-After IN_FLIGHT_RETRY_SECONDS).
 */
const FIRST_PAUSE_MS = 25;
const IN_FLIGHT_WAIT_MS = 3_000;
const IN_FLIGHT_RETRY_SECONDS = 1;

/** The refusal of an attempt that would pass the limit only counting attempts still in flight. */
export function attemptsInFlight(): DomainError {
  return new DomainError('servicio_no_disponible', 'Hay otros inicios de sesión en curso; reintente en un momento', undefined, {
    'retry-after': String(IN_FLIGHT_RETRY_SECONDS),
  });
}

/** The existing account an attempt names (an unknown username counts only toward its IP). */
export interface ThrottledAccount {
  userId: number;
}

/**
 * The per-username keys, case-sensitive like usernames (`Ana` and `ana` are two names): a SHA-256
 * in hex, so no collation can fold case (SQL Server's default does) and no username is stored.
 * `global` counts the username's failures from any IP, `pair` those from one client IP.
 */
export function throttleSubjects(username: string, ip: string | null): { global: string; pair: string } {
  const global = createHash('sha256').update(username, 'utf8').digest('hex');
  return { global, pair: `${global}@${(ip === null ? '' : throttledAddress(ip)).slice(0, 180)}` };
}

/**
 * The client a per-address limit counts: an IPv4 address as it is — also when written as IPv6
 * (IPv4-mapped `::ffff:a.b.c.d` in any spelling, IPv4-translated `::ffff:0:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, or behind the NAT64 prefix `64:ff9b::/96`) — and an IPv6 address by
 * its /64: one subscriber's network, whose 2^64 addresses a client picks from freely, so each
 * address a budget of its own would be no limit at all.
 */
export function throttledAddress(ip: string): string {
  const address = ip.split('%')[0]!;
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const embedsIPv4 =
    (zero(0, 5) && groups[5] === 0xffff) ||
    (zero(0, 4) && groups[4] === 0xffff && groups[5] === 0) ||
    (zero(0, 6) && groups[6] !== 0) ||
    (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6));
  if (embedsIPv4) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (without zone id), a trailing dotted IPv4 part as two. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] =>
    part
      ? part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        })
      : [];
  const [head = '', tail] = address.split('::');
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** Seconds until the blocking failure (at `blockingAt`) leaves the window; at least 1. */
export function retryAfterSeconds(blockingAt: Date, windowSeconds: number, now: Date): number {
  return Math.max(1, Math.ceil((blockingAt.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
}

/**
 * Login throttling shared by every instance through the database (table login_failures), in a
 * sliding window of LOGIN_WINDOW_SECONDS:
 *   - per (existing username, client IP): LOGIN_MAX_FAILURES_PER_USER, so nobody locks an account
 *     out from another address;
 *   - per existing username from any IP: LOGIN_MAX_FAILURES_PER_USER_GLOBAL, which stops guessing
 *     spread over many addresses;
 *   - per client IP, whatever the username (unknown ones included): LOGIN_MAX_FAILURES_PER_IP. A
 *     username that does not exist counts only here, so misspelling or re-casing a name cannot
 *     lock out the real account.
 * The wrong current passwords of PUT /users/me/password count here as the caller's failures too.
 *
 * Race-tolerant without a long transaction: an attempt first writes its own row per scope
 * (autocommit, one row per statement), then counts the rows written before it — the account's
 * scopes first, the address's only once those admit it, so one account's burst waiting on its own
 * limit never fills its address's for the accounts behind the same address. Concurrent attempts
 * therefore see each other, so a burst of parallel guesses cannot slip past the limit while the
 * first ones are still hashing. Only failures lock out (429): a limit reached counting attempts
 * still in flight refuses the next one for a moment (503, Retry-After 1 s), so correct sign-ins
 * made at once by one account or one office address are not locked out for the window. A refused
 * attempt removes its rows (a 429 never extends a lock-out), a failed one keeps them (settled), a
 * successful one removes its own and clears the (username, IP) count. Rows older than the window are deleted at every attempt, so the table only holds the
 * current window.
 */
@Injectable()
export class LoginThrottleService {
  private readonly logger = new Logger('LoginThrottle');

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly permissions: EffectivePermissionsService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: AppMetrics,
  ) {}

  /** Admits the attempt, or says how long to wait when one of its counts is over its limit. */
  async admit(username: string, ip: string | null, account?: ThrottledAccount): Promise<Admission> {
    const { maxFailuresPerUser, maxFailuresPerUserGlobal, maxFailuresPerIp, windowSeconds } = this.config.login;
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - windowSeconds * 1000);
    const tx = this.txHost.tx;
    await tx.delete(LoginFailureEntity, { occurredAt: LessThanOrEqual(windowStart) });

    // The account's scopes are decided first, and only an attempt they admit takes its place in
    // the address's: attempts waiting on their own account's limit (one account's burst) hold no
    // place there, so they never fill it for the other accounts behind the same address. An
    // attempt refused at the account is never checked, so it needs no counting at the address.
    const phases: Array<Array<{ count: Count; scope: ThrottleScope; subject: string; max: number }>> = [];
    if (account) {
      const { pair, global } = throttleSubjects(username, ip);
      phases.push([
        { count: 'pair', scope: 'user', subject: pair, max: maxFailuresPerUser },
        { count: 'global', scope: 'user', subject: global, max: maxFailuresPerUserGlobal },
      ]);
    }
    if (ip) phases.push([{ count: 'ip', scope: 'ip', subject: throttledAddress(ip).slice(0, 256), max: maxFailuresPerIp }]);
    const rows: Counted[] = [];
    let waited = 0; // one wait for attempts in flight, shared by both phases
    for (const scopes of phases) {
      // one row per statement: SQL Server does not return OUTPUT rows in insertion order, so ids of
      // a multi-row insert cannot be matched to their scopes by position
      const written: Counted[] = [];
      for (const s of scopes) {
        const inserted = await tx.insert(LoginFailureEntity, { scope: s.scope, subject: s.subject, occurredAt: now, settled: false });
        written.push({ count: s.count, scope: s.scope, subject: s.subject, id: Number(inserted.identifiers[0]?.id) });
      }
      rows.push(...written);

      // attempts in flight that fill a limit end within a compare or two: wait for them, then decide
      let verdict = await this.limitsReached(scopes, written, windowStart, now);
      for (let pause = FIRST_PAUSE_MS; verdict.inFlight && verdict.wait === 0 && waited < IN_FLIGHT_WAIT_MS; pause *= 2) {
        await sleep(pause);
        waited += pause;
        verdict = await this.limitsReached(scopes, written, windowStart, this.clock.now());
      }
      const { wait, accountLimited, inFlight } = verdict;
      if (wait > 0 || inFlight) {
        await this.forget(rows.map((r) => r.id));
        if (wait === 0) {
          this.metrics?.requestsShed.inc({ reason: 'sign_ins_in_flight' });
          return { admitted: false, refusal: 'inFlight', retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS };
        }
        if (account && accountLimited) await this.warnIfAdministrator(account.userId, wait);
        return { admitted: false, refusal: 'throttled', retryAfterSeconds: wait };
      }
    }
    return { admitted: true, attempt: { rows } };
  }

  /**
   * Per scope, whether the rows written before this attempt's reach the limit: by failures (`wait`,
   * the seconds until the blocking one leaves the window) or only counting attempts still in
   * flight (`inFlight`).
   */
  private async limitsReached(
    scopes: ReadonlyArray<{ count: Count; scope: ThrottleScope; subject: string; max: number }>,
    rows: readonly Counted[],
    windowStart: Date,
    now: Date,
  ): Promise<{ wait: number; accountLimited: boolean; inFlight: boolean }> {
    const { windowSeconds } = this.config.login;
    const tx = this.txHost.tx;
    let wait = 0;
    let accountLimited = false;
    let inFlight = false;
    for (const [i, s] of scopes.entries()) {
      // the max-th most recent earlier row: while it is inside the window, the limit is reached —
      // by failures when it is also the max-th most recent earlier failure
      const blockingRow = (settledOnly: boolean) => {
        const query = tx
          .getRepository(LoginFailureEntity)
          .createQueryBuilder('f')
          .where('f.scope = :scope AND f.subject = :subject', { scope: s.scope, subject: s.subject })
          .andWhere('f.occurredAt > :windowStart AND f.id < :id', { windowStart, id: rows[i]!.id });
        if (settledOnly) query.andWhere('f.settled = :settled', { settled: true });
        return query
          .orderBy('f.occurredAt', 'DESC')
          .addOrderBy('f.id', 'DESC')
          .skip(s.max - 1)
          .take(1)
          .getOne();
      };
      if (!(await blockingRow(false))) continue;
      const failure = await blockingRow(true);
      if (!failure) {
        inFlight = true;
        continue;
      }
      wait = Math.max(wait, retryAfterSeconds(failure.occurredAt, windowSeconds, now));
      if (s.count !== 'ip') accountLimited = true;
    }
    return { wait, accountLimited, inFlight };
  }

  /**
   * Records how an admitted attempt ended. A failure keeps its rows, marked settled (they count
   * as failures until they leave the window); a success removes them and clears the (username, IP) count — the username's count
   * across IPs stays, so a successful sign-in cannot reset distributed guessing; a fault of ours
   * (not a wrong credential) removes them, since it says nothing about the caller.
   */
  async settle(attempt: LoginAttempt, outcome: LoginOutcome): Promise<void> {
    if (outcome === 'failure') {
      await this.txHost.tx.update(LoginFailureEntity, { id: In(attempt.rows.map((r) => r.id)) }, { settled: true });
      return;
    }
    await this.forget(attempt.rows.map((r) => r.id));
    if (outcome !== 'success') return;
    const pair = attempt.rows.find((r) => r.count === 'pair');
    if (pair) await this.txHost.tx.delete(LoginFailureEntity, { scope: 'user', subject: pair.subject });
  }

  private async forget(ids: number[]): Promise<void> {
    if (ids.length) await this.txHost.tx.delete(LoginFailureEntity, { id: In(ids) });
  }

  /** An administrator locked out is worth an operator's attention: it may be an attack on the keys of the system. */
  private async warnIfAdministrator(userId: number, retryAfterSeconds: number): Promise<void> {
    const access = await this.permissions.resolve(userId, this.txHost.tx);
    if (access?.efectivos.includes(PERMISSIONS.usuarios.gestionar)) {
      this.logger.warn({ userId, retryAfterSeconds }, `sign-in throttled for user ${userId}, who holds ${PERMISSIONS.usuarios.gestionar}`);
    }
  }
}
