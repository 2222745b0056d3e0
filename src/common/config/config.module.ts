import { type DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from './index.js';

/** Whether this application creates the bootstrap `admin` on an empty users table (not an operator command). */
export const BOOTSTRAP_ADMIN = Symbol('BOOTSTRAP_ADMIN');

@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AppConfig, runtime: { bootstrapAdmin: boolean } = { bootstrapAdmin: true }): DynamicModule {
    return {
      module: AppConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: BOOTSTRAP_ADMIN, useValue: runtime.bootstrapAdmin },
      ],
      exports: [APP_CONFIG, BOOTSTRAP_ADMIN],
    };
  }
}
