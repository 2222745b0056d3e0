import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppMetrics } from '../../src/observability/metrics.js';
import { TestApp } from '../support/test-app.js';

/**
 * audit_partitions_ahead_months is read from the catalog in the background of the scrapes: a
 * scrape never waits for a database connection. With the pool exhausted, it waited for one per
 * store (up to the connect timeout each) and went past Prometheus' scrape timeout.
 */
describe('the partitions-ahead gauge while the pool is exhausted', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.create({ env: { DB_POOL_SIZE: '1' } });
  });
  afterAll(() => t?.close());

  const scrape = () => t.app.get(AppMetrics).registry.metrics();

  it('answers with the last reading while every connection is held', async () => {
    const first = await scrape();
    expect(first).toMatch(/^audit_partitions_ahead_months\{store="audit_events"\} [3-9]/m);
    expect(first).toMatch(/^audit_partitions_ahead_months\{store="security_events"\} [3-9]/m);

    // the pool's only connection, held in a transaction
    const runner = t.db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      // answered while the connection is still held: a scrape that waited for it would have given
      // up after the connect timeout and left the series out
      const held = await scrape();
      expect(held).toMatch(/^audit_partitions_ahead_months\{store="audit_events"\} [3-9]/m);
      expect(held).toMatch(/^audit_partitions_ahead_months\{store="security_events"\} [3-9]/m);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
