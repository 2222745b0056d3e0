import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { AuditSealService } from '../integrity/audit-seal.service.js';

/**
 * Every AUDIT_SEAL_MINUTES (default 5): seals what was committed to both event stores since the
 * previous seal. An interval rather than a cron expression: any number of minutes, counted from
 * the start. A run that overlaps the previous one (or another instance's) reports `busy`.
 */
@Injectable()
export class AuditSealJob implements OnApplicationBootstrap, OnApplicationShutdown {
  static readonly NAME = 'audit.seal';
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly service: AuditSealService,
    private readonly registry: SchedulerRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const interval = setInterval(() => void this.handle(), this.config.auditSeal.minutes * 60_000);
    interval.unref();
    this.registry.addInterval(AuditSealJob.NAME, interval);
  }

  async handle(): Promise<void> {
    if (this.running) return;
    this.running = this.service.run().finally(() => (this.running = null));
    await this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.running;
  }
}
