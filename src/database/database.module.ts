import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { connectionSettings, DATABASE_RUNTIME, type DatabaseRuntime, runMigrations } from './database-runtime.js';
import { SQL_DIALECT } from './dialects/index.js';
import { migrationsFor } from './migrations.js';
import { DatabasePrerequisitesCheck } from './database-prerequisites.check.js';
import { PendingMigrationsCheck } from './pending-migrations.check.js';
import { ReplicaReads } from './replica-reads.js';
import { ConnectionTurns } from './connection-turns.js';

/** Connects TypeORM to the resolved database (and, when configured, the read replica) and exposes the engine's SqlDialect. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(runtime: DatabaseRuntime): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            // Migrations run as the connecting (owner) login; the service's own pool then switches
            // to the restricted role they create (DATABASE_APP_ROLE), which may not alter the schema.
            if (config.migrationsRun) await runMigrations(config, runtime.url);
            return {
              ...runtime.dialect.dataSourceOptions({ ...connectionSettings(config, runtime.url), role: config.db.appRole || undefined }),
              autoLoadEntities: true,
              synchronize: false,
              migrations: migrationsFor(runtime.engine),
              migrationsRun: false,
              migrationsTransactionMode: 'each',
              retryAttempts: 3,
              retryDelay: 1000,
            };
          },
        }),
      ],
      providers: [
        { provide: SQL_DIALECT, useValue: runtime.dialect },
        { provide: DATABASE_RUNTIME, useValue: runtime },
        ConnectionTurns,
        ReplicaReads,
        PendingMigrationsCheck,
        DatabasePrerequisitesCheck,
      ],
      exports: [SQL_DIALECT, DATABASE_RUNTIME, ReplicaReads],
    };
  }
}
