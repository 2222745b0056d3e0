import { Injectable } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';
import { PartitionManagerService } from '../maintenance/partition-manager.service.js';
import { quartzToCron, JOB_SCHEDULES } from './cron-expression.js';

/** Monthly, 1st day 02:00 UTC: partitions of both event stores through the third month ahead. */
@Injectable()
export class PartitionManagerJob {
  constructor(private readonly service: PartitionManagerService) {}

  @Cron(quartzToCron(JOB_SCHEDULES.partitionManager), { name: 'audit.partition-manager', timeZone: 'UTC', waitForCompletion: true })
  async handle(): Promise<void> {
    await this.service.run({ scheduled: true });
  }
}
