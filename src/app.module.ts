import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AppConfigModule } from './common/config/config.module.js';
import type { AppConfig } from './common/config/index.js';
import { CommonModule } from './common/common.module.js';
import type { Clock } from './common/context/clock.js';
import { pinoOptions } from './common/logging/logging.js';
import { DatabaseModule } from './database/database.module.js';
import type { DatabaseRuntime } from './database/database-runtime.js';
import { HealthModule } from './health/health.module.js';
import { UsersModule } from './users/users.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  database: DatabaseRuntime;
  /** replaces the system clock (tests) */
  clock?: Clock;
}

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(options.config),
        LoggerModule.forRoot(pinoOptions(options.config)),
        DatabaseModule.forRoot(options.database),
        CommonModule.forRoot({ clock: options.clock }),
        AuditModule,
        AuthModule,
        HealthModule,
        UsersModule,
      ],
    };
  }
}
