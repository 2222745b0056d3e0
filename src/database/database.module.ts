import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { connectionSettings, DATABASE_RUNTIME, type DatabaseRuntime } from './database-runtime.js';
import { SQL_DIALECT } from './dialects/index.js';
import { migrationsFor } from './migrations.js';

/** Connects TypeORM to the resolved database and exposes the engine's SqlDialect. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(runtime: DatabaseRuntime): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            ...runtime.dialect.dataSourceOptions(connectionSettings(config, runtime.url)),
            autoLoadEntities: true,
            synchronize: false,
            migrations: migrationsFor(runtime.engine),
            migrationsRun: config.migrationsRun,
            migrationsTransactionMode: 'each',
            retryAttempts: 3,
            retryDelay: 1000,
          }),
        }),
      ],
      providers: [
        { provide: SQL_DIALECT, useValue: runtime.dialect },
        { provide: DATABASE_RUNTIME, useValue: runtime },
      ],
      exports: [SQL_DIALECT, DATABASE_RUNTIME],
    };
  }
}
