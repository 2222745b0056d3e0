import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { connectionSettings } from './database-runtime.js';
import { ConnectionTurns } from './connection-turns.js';
import { redactUrl } from './database-url.js';
import { SQL_DIALECT, type SqlDialect } from './dialects/index.js';

/** How long a measured replica lag (or a failure to reach the replica) is trusted before it is measured again. */
export const REPLICA_CHECK_INTERVAL_MS = 5_000;
/** A replica that does not answer within this is treated as down (its reads go to the primary). */
const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/** What the last check of the replica found. */
export interface ReplicaState {
  usable: boolean;
  /** seconds behind the primary; null when unknown (unreachable, or the engine could not tell) */
  lagSeconds: number | null;
  checkedAt: number;
  reason?: string;
}

/**
 * Reads that may be served by the read replica (DATABASE_READ_URL): the audit query and the large
 * paged lists. The replica is a second TypeORM DataSource of its own, not TypeORM's
 * `replication` option, because that option connects every replica at start (a replica that is
 * down would stop the service from starting) and offers no per-query way back to the primary; and
 * because the transactional CLS adapter stays bound to the primary DataSource alone, nothing
 * outside this class can reach the replica by accident.
 *
 * A read goes to the primary when: no replica is configured; a transaction is active (a mutating
 * request reads its own writes); the replica's last measured lag exceeds
 * DATABASE_READ_MAX_LAG_SECONDS or could not be measured; or the read failed on the replica (it is
 * then retried on the primary, so a replica never makes a read fail). The lag is measured at most
 * once per REPLICA_CHECK_INTERVAL_MS per process, never per request.
 */
@Injectable()
export class ReplicaReads implements OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplica');
  private replica: DataSource | undefined;
  private state: ReplicaState | undefined;
  private checking: Promise<void> | undefined;
  private closed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    @InjectDataSource() private readonly primary: DataSource,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly turns: ConnectionTurns,
  ) {}

  get configured(): boolean {
    return this.config.readReplica !== undefined;
  }

  /** The last check's finding (undefined before the first check, or without a replica). */
  get lastState(): ReplicaState | undefined {
    return this.state;
  }

  /**
   * Runs `read` (statements that only read) on the replica when it may serve it, else on the
   * primary (the CLS transaction's manager when one is active).
   */
  async read<T>(read: (db: EntityManager) => Promise<T>): Promise<T> {
    if (!this.configured || this.closed || this.txHost.isTransactionActive()) return read(this.txHost.tx);
    const replica = await this.usableReplica();
    if (!replica) return read(this.txHost.tx);
    try {
      return await read(replica.manager);
    } catch (err) {
      // unreachable now: primary until the next check; any other error (a query cancelled by a
      // recovery conflict, a statement timeout) is retried on the primary without judging the replica
      if (this.dialect.isConnectionFailure(err)) this.record({ usable: false, lagSeconds: null, checkedAt: Date.now(), reason: describe(err) });
      else this.logger.warn({ err: describe(err) }, 'a read failed on the replica; answered from the primary');
      return read(this.txHost.tx);
    }
  }

  private async usableReplica(): Promise<DataSource | undefined> {
    const stale = !this.state || Date.now() - this.state.checkedAt >= REPLICA_CHECK_INTERVAL_MS;
    if (stale) {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
      // only the very first read waits for a measurement; later ones use the last one meanwhile
      if (!this.state) await this.checking;
    }
    return this.state?.usable ? this.replica : undefined;
  }

  private async check(): Promise<void> {
    const options = this.config.readReplica!;
    try {
      const replica = await this.connected();
      const lag = await this.dialect.replicaLagSeconds(replica);
      const usable = lag !== null && lag <= options.maxLagSeconds;
      this.record({
        usable,
        lagSeconds: lag,
        checkedAt: Date.now(),
        reason: usable ? undefined : lag === null ? 'lag unknown' : `lag ${lag.toFixed(1)} s over ${options.maxLagSeconds} s`,
      });
    } catch (err) {
      this.record({ usable: false, lagSeconds: null, checkedAt: Date.now(), reason: describe(err) });
    }
  }

  private async connected(): Promise<DataSource> {
    if (this.replica?.isInitialized) return this.replica;
    const options = this.config.readReplica!;
    const replica = new DataSource({
      ...this.dialect.dataSourceOptions({
        ...connectionSettings(this.config, options.url, 'medios-admin-api-replica'),
        poolSize: options.poolSize,
        connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
        role: this.config.db.appRole || undefined,
        readOnly: true,
      }),
      // the primary's entities (collected by autoLoadEntities), so entity queries work here too
      entities: this.primary.entityMetadatas.map((m) => m.target),
      synchronize: false,
      migrationsRun: false,
    } as never);
    await replica.initialize();
    this.turns.serve(replica);
    if (this.closed) {
      await replica.destroy();
      throw new Error('shutting down');
    }
    this.replica = replica;
    return replica;
  }

  private record(next: ReplicaState): void {
    const before = this.state;
    this.state = next;
    if (before?.usable === next.usable && before !== undefined) return;
    const where = redactUrl(this.config.readReplica!.url);
    if (next.usable) this.logger.log({ replica: where, lagSeconds: next.lagSeconds }, 'read replica in use for the audit query and paged lists');
    else
      this.logger.warn({ replica: where, lagSeconds: next.lagSeconds, reason: next.reason }, 'read replica not used: those reads go to the primary');
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.checking?.catch(() => {});
    if (this.replica?.isInitialized) await this.replica.destroy();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
