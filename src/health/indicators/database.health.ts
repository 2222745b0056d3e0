import { Inject, Injectable, Logger } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';

/** How long the readiness ping may take. */
export const READINESS_PING_MS = 3000;

/**
 * `database` of `/health/ready`: up when the database answers a ping within 3 s. The ping goes
 * through the service's pool, so a ping that times out while other work waits for a connection
 * measured the exhausted pool, not the database: that is still up (`pool: "exhausted"`). Under
 * load every replica's pool fills at once, and going unready then would take every endpoint out of
 * the Service — an outage instead of slow answers (the `MediosDatabasePoolExhausted` alert says it).
 * A failed or hung ping with nobody else waiting is down, with a generic message: the driver's
 * error (which names the database's address) is logged, never put in the public body.
 */
@Injectable()
export class DatabaseHealthIndicator {
  private readonly logger = new Logger('Health');

  constructor(
    private readonly health: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async check() {
    const indicator = this.health.check('database');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), READINESS_PING_MS)));
    try {
      const ping = this.dataSource.query('SELECT 1').then(() => 'answered' as const);
      // a ping that ends after the timeout has nobody to tell
      ping.catch(() => undefined);
      if ((await Promise.race([ping, timedOut])) === 'answered') return indicator.up();
      if (this.dialect.poolUsage(this.dataSource).waiting > 0) return indicator.up({ pool: 'exhausted' });
      this.logger.warn(`readiness: the database did not answer a ping within ${READINESS_PING_MS} ms`);
      return indicator.down({ message: 'the database does not answer' });
    } catch (err) {
      this.logger.warn({ err }, 'readiness: the database refused the ping');
      return indicator.down({ message: 'the database does not answer' });
    } finally {
      clearTimeout(timer);
    }
  }
}
