import { availableParallelism } from 'node:os';
import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { FairQueue, QueueFullError } from '../common/concurrency/fair-queue.js';
import { AppMetrics } from '../observability/metrics.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { RequestContext } from '../common/context/request-context.js';
import { DomainError } from '../common/errors/domain-error.js';

/**
 * How many bcrypt operations may run at once: one core is always left to the event loop and the
 * database, so a storm of logins slows logins down, not every other request (BENCHMARKS.md).
 */
export function bcryptConcurrency(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/**
 * bcrypt hashing. The work runs on libuv's thread pool (never on the event loop), at most
 * `bcryptConcurrency()` operations at a time. Those that wait take turns by client address (a
 * FairQueue): one client's burst of sign-ins or password changes waits behind itself, and another
 * client's sign-in waits for at most one operation of each client ahead of it, not for the burst.
 * At most PASSWORD_QUEUE_MAX operations wait; when the queue is full, the client with the most
 * waiting is refused — its newest waiting operation gives its place to another client's, or the
 * newcomer is refused when it is that client's — at once with 503 `servicio_no_disponible` and a
 * `Retry-After` estimated from the recent operations. A storm of password requests gets quick
 * refusals instead of an ever longer wait, and the storm's client gets them.
 *
 * Callers never hash or compare while holding a database connection, a transaction or a row lock:
 * the wait here can be long, and the pool is shared with every other request.
 */
const SERVICE_CLIENT = 'service';

@Injectable()
export class PasswordHasher implements OnModuleInit {
  private readonly logger = new Logger(PasswordHasher.name);
  private readonly concurrency = bcryptConcurrency();
  private readonly queue: FairQueue;
  private dummyHash: Promise<string> | undefined;
  /** a moving average of how long one operation takes, for Retry-After */
  private averageMs = 250;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly context?: RequestContext,
    @Optional() private readonly metrics?: AppMetrics,
  ) {
    this.queue = new FairQueue(this.concurrency, config.passwordQueueMax);
  }

  /**
   * Starts the dummy hash at boot without waiting for it (it runs on the thread pool while the
   * application starts), so even the first unknown username costs only one compare.
   */
  onModuleInit(): void {
    this.dummy().catch((err: unknown) => this.logger.error(`dummy hash failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** bcrypt operations running plus those waiting for their turn (the password_hash_queue_depth metric). */
  get queueDepth(): number {
    return this.queue.activeCount + this.queue.pendingCount;
  }

  hash(password: string): Promise<string> {
    return this.run(() => bcrypt.hash(password, this.config.bcryptRounds));
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.run(() => bcrypt.compare(password, hash));
  }

  /**
   * Whether `hash` was made at another cost than the configured one (`BCRYPT_ROUNDS` changed since):
   * its compares take another time than the dummy's, so sign-in replaces it once the password is
   * known. A hash whose cost cannot be read is left as it is.
   */
  needsRehash(hash: string): boolean {
    try {
      return bcrypt.getRounds(hash) !== this.config.bcryptRounds;
    } catch {
      return false;
    }
  }

  /**
   * Spends exactly one compare against a hash of the configured cost, so an unknown username
   * costs what a wrong password costs and response times do not reveal who exists.
   */
  async verifyAgainstDummy(password: string): Promise<void> {
    await this.verify(password, await this.dummy());
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= this.queue.run(SERVICE_CLIENT, () => bcrypt.hash('dummy-password-for-timing', this.config.bcryptRounds));
    return this.dummyHash;
  }

  private async run<T>(operation: () => Promise<T>): Promise<T> {
    // the client's address; work outside a request (start, operator commands) is the service's own
    const client = (this.context?.active ? this.context.ip : null) ?? SERVICE_CLIENT;
    try {
      return await this.queue.run(client, async () => {
        const started = performance.now();
        try {
          return await operation();
        } finally {
          this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
        }
      });
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      this.metrics?.requestsShed.inc({ reason: 'password_queue_full' });
      const seconds = Math.ceil(((this.queue.pendingCount + this.queue.activeCount) * this.averageMs) / this.concurrency / 1000);
      throw new DomainError(
        'servicio_no_disponible',
        'Demasiadas operaciones con contraseñas en curso; intente de nuevo en unos segundos',
        undefined,
        {
          'retry-after': String(Math.max(1, seconds)),
        },
      );
    }
  }
}
