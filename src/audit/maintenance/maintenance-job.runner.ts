import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { Clock } from '../../common/context/clock.js';
import { connectionSettings, DATABASE_RUNTIME, type DatabaseRuntime } from '../../database/database-runtime.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { AppMetrics } from '../../observability/metrics.js';

export type MaintenanceJobName = 'partition-manager' | 'retention' | 'integrity-check' | 'audit-seal';
/** How many jobs there are: a process holds at most one lock of each at a time. */
const JOB_COUNT = 4;

/**
 * `ok`: the job did its work; `alert`: it ran and found the storage inconsistent (the integrity
 * check, or a month the partition manager could not cover); `busy`: another instance holds the
 * job's lock, nothing was done; `failed`: an error.
 */
export type JobStatus = 'ok' | 'alert' | 'busy' | 'failed';

export interface JobResult {
  job: MaintenanceJobName;
  status: JobStatus;
  startedAt: string;
  finishedAt: string;
  details?: Record<string, unknown>;
  error?: string;
}

export interface JobRunOptions {
  /**
   * A run fired by the schedule: the job lock is kept until SCHEDULED_LOCK_HOLD_MS after the
   * start even when the work ended sooner, so that an instance whose timer fires a little later
   * (clock skew, a busy event loop) finds the lock taken instead of running the job again. A run
   * that failed releases it at once: another instance, or the operator's rerun, tries again.
   */
  scheduled?: boolean;
  /** how long that hold lasts, for a schedule shorter than a few minutes (default SCHEDULED_LOCK_HOLD_MS) */
  lockHoldMs?: number;
}

/**
 * How long a scheduled run keeps its job lock at least. Every instance fires the same cron
 * expression; any instance whose clock is within this of the winner's reports `busy`. Far
 * shorter than the shortest schedule (weekly), so the next slot always finds the lock free.
 */
export const SCHEDULED_LOCK_HOLD_MS = 60_000;

export interface JobOutcome {
  status?: 'ok' | 'alert';
  details: Record<string, unknown>;
}

/**
 * Runs one maintenance job under its database job lock, so that of several instances started by
 * the same schedule exactly one does the work and the others report `busy`. Logs what happened
 * (the record of each run: `context: "Maintenance"`, `job`, `status`) and counts it
 * (maintenance_job_runs_total; maintenance_job_last_success_timestamp_seconds when
 * the job completed, `ok` or `alert`).
 */
@Injectable()
export class MaintenanceJobRunner implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Maintenance');
  /** ends the lock holds of scheduled runs when the process stops */
  private readonly stopping = new AbortController();
  private readonly releasing = new Set<Promise<void>>();
  /**
   * The job locks' own connections (a pool of one per job, opened on the first run): a lock is
   * held on its connection for the whole run and hold, which must not take one of the requests'.
   */
  private locks?: Promise<DataSource>;

  constructor(
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly clock: Clock,
    private readonly metrics: AppMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_RUNTIME) private readonly runtime: DatabaseRuntime,
  ) {}

  private lockConnections(): Promise<DataSource> {
    this.locks ??= (async () => {
      const settings = { ...connectionSettings(this.config, this.runtime.url, 'medios-admin-jobs'), poolSize: JOB_COUNT };
      return new DataSource(this.runtime.dialect.dataSourceOptions(settings)).initialize();
    })().catch((err: unknown) => {
      this.locks = undefined; // the next run tries again
      throw err;
    });
    return this.locks;
  }

  /** Closes the locks' connections once beforeApplicationShutdown has released the locks. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.releasing]);
    const locks = this.locks;
    this.locks = undefined;
    await locks?.then((ds) => ds.destroy()).catch(() => undefined);
  }

  async run(job: MaintenanceJobName, work: () => Promise<JobOutcome>, options: JobRunOptions = {}): Promise<JobResult> {
    let result: JobResult;
    try {
      result = await this.runLocked(job, work, options);
    } catch (err) {
      this.metrics.jobRuns.inc({ job, result: 'failed' }); // the job lock could not even be asked for
      throw err;
    }
    this.metrics.jobRuns.inc({ job, result: result.status });
    if (result.status === 'ok' || result.status === 'alert') this.metrics.jobLastSuccess.set({ job }, Date.parse(result.finishedAt) / 1000);
    return result;
  }

  private async runLocked(job: MaintenanceJobName, work: () => Promise<JobOutcome>, options: JobRunOptions): Promise<JobResult> {
    const started = performance.now();
    const startedAt = this.clock.now().toISOString();
    const lock = await this.dialect.tryJobLock(await this.lockConnections(), `maintenance:${job}`);
    if (!lock) {
      this.logger.log({ job, status: 'busy' }, `${job}: another instance holds the job lock; nothing done`);
      return { job, status: 'busy', startedAt, finishedAt: this.clock.now().toISOString() };
    }
    let failed = false;
    try {
      const outcome = await work();
      const result: JobResult = {
        job,
        status: outcome.status ?? 'ok',
        startedAt,
        finishedAt: this.clock.now().toISOString(),
        details: outcome.details,
      };
      if (result.status === 'alert') this.logger.warn({ job, status: result.status, details: result.details }, `${job}: inconsistencies found`);
      else this.logger.log({ job, status: result.status, details: result.details }, `${job}: done`);
      return result;
    } catch (err) {
      failed = true;
      const error = err instanceof Error ? err.message : String(err);
      this.logger.error({ job, status: 'failed', err }, `${job}: failed: ${error}`);
      return { job, status: 'failed', startedAt, finishedAt: this.clock.now().toISOString(), error };
    } finally {
      const releasing = (async () => {
        // a failed run is released at once: the operator's rerun after a fix (or another
        // instance's timer) runs the job instead of finding it busy
        if (options.scheduled && !failed) await this.hold((options.lockHoldMs ?? SCHEDULED_LOCK_HOLD_MS) - (performance.now() - started));
        await lock.release();
      })();
      this.releasing.add(releasing);
      const released = releasing.finally(() => this.releasing.delete(releasing));
      // a scheduled run's result (its log line, its metrics) is known now: only the lock waits out the hold
      if (options.scheduled) released.catch((err: unknown) => this.logger.warn({ job, err }, `${job}: the job lock could not be released`));
      else await released;
    }
  }

  private async hold(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping.signal.aborted) return;
    await sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => {});
  }

  /** Ends the holds and releases the locks while the pool still exists. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.releasing]);
  }
}
