import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AuditJobsModule } from './audit/jobs/audit-jobs.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import { AppConfigModule } from './common/config/config.module.js';
import type { AppConfig } from './common/config/index.js';
import { CommonModule } from './common/common.module.js';
import { bindRouteInterceptors } from './common/transactions/route-interceptors.js';
import type { Clock } from './common/context/clock.js';
import { pinoOptions } from './common/logging/logging.js';
import { DatabaseModule } from './database/database.module.js';
import { FiscalModule } from './fiscal/fiscal.module.js';
import type { DatabaseRuntime } from './database/database-runtime.js';
import { HealthModule } from './health/health.module.js';
import { MediosModule } from './medios/medios.module.js';
import type { AppMetrics } from './observability/metrics.js';
import { MetricsModule } from './observability/metrics.module.js';
import { RolesModule } from './roles/roles.module.js';
import { UsersModule } from './users/users.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  database: DatabaseRuntime;
  /** the application's Prometheus metrics (app.factory.ts makes them; its request hook records into them) */
  metrics: AppMetrics;
  /** replaces the system clock (tests) */
  clock?: Clock;
  /** extra modules mounted beside the application's (tests mount probe routes, e.g. to exercise the guard) */
  extraModules?: Array<Type | DynamicModule>;
  /**
   * An operator command of the CLI (a job, a password reset, the document): its logs go to stderr,
   * so its stdout is its JSON result alone, and it never creates the bootstrap `admin` — the
   * server's first start does, with ADMIN_PASSWORD.
   */
  operatorCommand?: boolean;
}

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    const imports = [
      AppConfigModule.forRoot(options.config, { bootstrapAdmin: !options.operatorCommand }),
      LoggerModule.forRoot(pinoOptions(options.config, options.operatorCommand)),
      MetricsModule.forRoot(options.metrics),
      DatabaseModule.forRoot(options.database),
      CommonModule.forRoot({ clock: options.clock }),
      AuditModule,
      AuditJobsModule.forRoot(options.config),
      AuthModule,
      HealthModule,
      UsersModule,
      RolesModule,
      MediosModule,
      FiscalModule,
      CatalogModule,
      ...(options.extraModules ?? []),
    ];
    // before Nest scans the modules: the transaction and ETag interceptors of each route
    bindRouteInterceptors(imports);
    return { module: AppModule, imports };
  }
}
