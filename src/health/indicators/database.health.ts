import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/index.js';
import { connectionSettings, DATABASE_RUNTIME, type DatabaseRuntime } from '../../database/database-runtime.js';

/** How long the readiness ping may take. */
export const READINESS_PING_MS = 3000;

/**
 * `database` of `/health/ready`: up when the database answers a ping within 3 s, over a connection
 * of the probe's own (a pool of one, opened on the first check), never one of the service's pool.
 * Pinging through that pool measured the pool: under load every replica's pool fills at once, and
 * every replica went unready together, leaving the Service no endpoint — an outage instead of slow
 * answers (`MediosDatabasePoolExhausted` alerts on an exhausted pool). A database that refuses, or
 * that does not answer in time (a hung server, a network partition), is down, whatever the load;
 * then the probe's connection is dropped, so the next check starts on a fresh one. The body gives
 * a generic message: the driver's error, which names the database's address, is logged.
 */
@Injectable()
export class DatabaseHealthIndicator implements OnModuleDestroy {
  private readonly logger = new Logger('Health');
  private probe?: Promise<DataSource>;

  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE_RUNTIME) private readonly runtime: DatabaseRuntime,
  ) {}

  async check() {
    const indicator = this.health.check('database');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), READINESS_PING_MS)));
    try {
      const ping = this.connection()
        .then((probe) => probe.query('SELECT 1'))
        .then(() => 'answered' as const);
      ping.catch(() => undefined); // a ping that ends after the timeout has nobody to tell
      if ((await Promise.race([ping, timedOut])) === 'answered') return indicator.up();
      this.logger.warn(`readiness: the database did not answer a ping within ${READINESS_PING_MS} ms`);
    } catch (err) {
      this.logger.warn({ err }, 'readiness: the database refused the ping');
    } finally {
      clearTimeout(timer);
    }
    this.drop();
    return indicator.down({ message: 'the database does not answer' });
  }

  async onModuleDestroy(): Promise<void> {
    const probe = this.probe;
    this.probe = undefined;
    await probe?.then((ds) => ds.destroy()).catch(() => undefined);
  }

  private connection(): Promise<DataSource> {
    this.probe ??= (async () => {
      const settings = { ...connectionSettings(this.config, this.runtime.url, 'medios-admin-readiness'), poolSize: 1 };
      const probe = new DataSource(this.runtime.dialect.dataSourceOptions(settings));
      return probe.initialize();
    })();
    return this.probe;
  }

  /** Forgets the probe's connection (closing it in the background: a hung one may never close). */
  private drop(): void {
    const probe = this.probe;
    this.probe = undefined;
    void probe?.then((ds) => ds.destroy()).catch(() => undefined);
  }
}
