import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { PasswordHasher } from '../auth/password-hasher.js';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { AppMetrics } from './metrics.js';

/**
 * The Prometheus listener: `GET /metrics` on METRICS_PORT (default 9464), on its own port so the
 * clients of the API never reach it and the API's port never serves it; METRICS_PORT=0: none.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly metrics: AppMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The bound port, or undefined when the listener is off. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.metricsPort) return;
    this.metrics.collectDefaults();
    const registry = this.metrics.registry;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => {
          this.logger.error(`metrics collection failed: ${err instanceof Error ? err.message : String(err)}`);
          res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort, this.config.host, () => resolve());
    });
    this.server = server;
    this.logger.log({ port: this.port }, `metrics on http://${this.config.host}:${this.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The gauges read at each scrape from the pieces that own the state: the database pool (through
 * the engine's dialect) and the password-hash queue. The counters are incremented where the
 * events happen (security events, audit writes, the maintenance job runner).
 */
@Injectable()
class ScrapeTimeGauges implements OnModuleInit {
  constructor(
    private readonly metrics: AppMetrics,
    private readonly moduleRef: ModuleRef,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  onModuleInit(): void {
    const pool = () => this.dialect.poolUsage(this.dataSource);
    this.metrics.gaugeReadAtScrape({ name: 'db_pool_connections_in_use', help: 'Database connections lent to a query or transaction' }, (g) =>
      g.set(pool().inUse),
    );
    this.metrics.gaugeReadAtScrape({ name: 'db_pool_connections_idle', help: 'Open database connections waiting in the pool' }, (g) =>
      g.set(pool().idle),
    );
    this.metrics.gaugeReadAtScrape(
      { name: 'db_pool_waiting_requests', help: 'Queries or transactions waiting for a database connection (the pool is exhausted)' },
      (g) => g.set(pool().waiting),
    );
    const hasher = this.moduleRef.get(PasswordHasher, { strict: false });
    this.metrics.gaugeReadAtScrape(
      { name: 'password_hash_queue_depth', help: 'bcrypt operations running or waiting for their turn (logins, password changes)' },
      (g) => g.set(hasher.queueDepth),
    );
  }
}

/** Prometheus metrics (one AppMetrics per application, given by app.factory.ts) and their listener. */
@Global()
@Module({})
export class MetricsModule {
  static forRoot(metrics: AppMetrics): DynamicModule {
    return {
      module: MetricsModule,
      providers: [{ provide: AppMetrics, useValue: metrics }, MetricsServer, ScrapeTimeGauges],
      exports: [AppMetrics, MetricsServer],
    };
  }
}
