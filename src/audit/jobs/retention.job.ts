import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { RetentionService } from '../maintenance/retention.service.js';
import { quartzToCron, JOB_SCHEDULES } from './cron-expression.js';

/** Yearly, 1 January 03:00 UTC: audit rows over 10 years, security rows over 5, expired history. */
@Injectable()
export class RetentionJob {
  constructor(private readonly service: RetentionService) {}

  @Cron(quartzToCron(JOB_SCHEDULES.retention), { name: 'audit.retention', timeZone: 'UTC', waitForCompletion: true })
  async handle(): Promise<void> {
    await this.service.run({ scheduled: true });
  }
}
