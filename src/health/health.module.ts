import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { DatabaseHealthIndicator } from './indicators/database.health.js';
import { FreshnessHealthIndicator } from './indicators/freshness.health.js';
import { PartitionsHealthIndicator } from './indicators/partitions.health.js';
import { RetentionHealthIndicator } from './indicators/retention.health.js';
import { VersioningHealthIndicator } from './indicators/versioning.health.js';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [DatabaseHealthIndicator, VersioningHealthIndicator, RetentionHealthIndicator, PartitionsHealthIndicator, FreshnessHealthIndicator],
})
export class HealthModule {}
