import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { AuditSealService } from '../integrity/audit-seal.service.js';
import { SCHEDULED_LOCK_HOLD_MS } from '../maintenance/maintenance-job.runner.js';

/**
 * Every AUDIT_SEAL_MINUTES (default 5): seals what was committed to both event stores since the
 * previous seal. The runs fall on the multiples of that period on the UTC clock (every 5 minutes:
 * :00, :05, …), the same instants on every replica, and hold the job lock for a while as the
 * cron jobs do (at most half the period), so of several replicas one seals and the others report
 * `busy` (unless that one failed: it releases the lock at once, and a later timer tries again). A
 * run that overlaps the previous one of this process is skipped.
 */
@Injectable()
export class AuditSealJob implements OnApplicationBootstrap, OnApplicationShutdown {
  static readonly NAME = 'audit.seal';
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly service: AuditSealService,
    private readonly registry: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get periodMs(): number {
    return this.config.auditSeal.minutes * 60_000;
  }

  onApplicationBootstrap(): void {
    this.scheduleNext();
  }

  /** A timer to the next multiple of the period, set again at each run: an interval would drift from the clock. */
  private scheduleNext(): void {
    if (this.stopped) return;
    const delay = this.periodMs - (Date.now() % this.periodMs);
    const timer = setTimeout(() => {
      this.scheduleNext();
      void this.handle();
    }, delay);
    timer.unref();
    if (this.registry.doesExist('timeout', AuditSealJob.NAME)) this.registry.deleteTimeout(AuditSealJob.NAME);
    this.registry.addTimeout(AuditSealJob.NAME, timer);
  }

  async handle(): Promise<void> {
    if (this.running) return;
    this.running = this.service
      .run({ scheduled: true, lockHoldMs: Math.min(SCHEDULED_LOCK_HOLD_MS, this.periodMs / 2) })
      .finally(() => (this.running = null));
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.registry.doesExist('timeout', AuditSealJob.NAME)) this.registry.deleteTimeout(AuditSealJob.NAME);
    await this.running;
  }
}
