import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { IntegrityCheckService } from '../maintenance/integrity-check.service.js';
import { quartzToCron, JOB_SCHEDULES } from './cron-expression.js';

/** Weekly, Sunday 01:00 UTC: versioning and partitions; `system.integrity_alert` on a failure. */
@Injectable()
export class IntegrityCheckJob {
  constructor(private readonly service: IntegrityCheckService) {}

  @Cron(quartzToCron(JOB_SCHEDULES.integrityCheck), { name: 'audit.integrity-check', timeZone: 'UTC', waitForCompletion: true })
  async handle(): Promise<void> {
    await this.service.run({ scheduled: true });
  }
}
