import { Logger } from '@nestjs/common';
import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { StorageCheck } from '../../audit/maintenance/audit-storage.inspector.js';

const logger = new Logger('Health');

/**
 * Turns a storage check into a terminus result under `key`. A check that cannot run (the
 * database is unreachable, a catalog query fails) is `down` with a generic message; the cause is
 * logged, never put in the public body.
 */
export async function indicate<const Key extends string>(
  health: HealthIndicatorService,
  key: Key,
  check: () => Promise<StorageCheck>,
): Promise<HealthIndicatorResult<Key>> {
  const indicator = health.check(key);
  try {
    const outcome = await check();
    return outcome.healthy ? indicator.up(outcome.data) : indicator.down(outcome.data);
  } catch (err) {
    logger.error({ err, check: key }, `health check ${key} could not run`);
    return indicator.down({ message: `the ${key} check could not be run` });
  }
}
