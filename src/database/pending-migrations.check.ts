import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { DATABASE_RUNTIME, type DatabaseRuntime } from './database-runtime.js';
import { migrationsFor } from './migrations.js';

/**
 * With MIGRATIONS_RUN=false (Kubernetes: the migrate Job applies them before the rollout) the
 * service refuses to start while a migration it ships is not applied, naming them. Without the
 * check a pod a few migrations ahead of its database started and answered ready — on SQL Server
 * without a permission a later migration denies — and one further ahead failed on the first
 * missing column with a message that named neither the migrations nor the Job.
 */
@Injectable()
export class PendingMigrationsCheck implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_RUNTIME) private readonly runtime: DatabaseRuntime,
    private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.migrationsRun) return;
    const shipped = migrationsFor(this.runtime.engine).map((M) => new M().name ?? M.name);
    const apply = 'MIGRATIONS_RUN=false: apply them first (node dist/src/cli.js migrate, the migrate Job), then start';
    const rows: Array<{ name: string }> = await this.dataSource.query('SELECT name FROM migrations').catch((err: Error) => {
      // an empty database has no bookkeeping table yet
      throw new Error(`cannot read the applied migrations (${err.message}); ${apply}`);
    });
    const applied = new Set(rows.map((r) => r.name));
    const pending = shipped.filter((name) => !applied.has(name));
    if (pending.length) throw new Error(`the database lacks ${pending.length} migration(s) of this version: ${pending.join(', ')}. ${apply}`);
  }
}
