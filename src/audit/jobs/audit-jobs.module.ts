import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { AuditSealJob } from './audit-seal.job.js';
import { IntegrityCheckJob } from './integrity-check.job.js';
import { PartitionManagerJob } from './partition-manager.job.js';
import { RetentionJob } from './retention.job.js';

/**
 * The scheduled maintenance jobs: the seed's three and the audit seal. They exist only when `jobsEnabled`
 * (JOBS_ENABLED, always false under NODE_ENV=test, and false in the CLI, which runs a job once
 * instead): otherwise neither the scheduler nor the job classes are registered, so nothing fires.
 * The services they call live in AuditModule, where the CLI reaches them too.
 */
@Module({})
export class AuditJobsModule {
  static forRoot(options: { jobsEnabled: boolean }): DynamicModule {
    if (!options.jobsEnabled) return { module: AuditJobsModule };
    return {
      module: AuditJobsModule,
      imports: [ScheduleModule.forRoot()],
      providers: [PartitionManagerJob, RetentionJob, IntegrityCheckJob, AuditSealJob],
    };
  }
}
