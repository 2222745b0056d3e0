import { setTimeout } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixedClock } from '../../src/common/context/clock.js';
import { AppMetrics } from '../../src/observability/metrics.js';
import { TestApp } from '../support/test-app.js';

/**
 * audit_partitions_ahead_months is read from the catalog in the background of the scrapes: a
 * scrape never waits for a database connection. With the pool exhausted, it waited for one per
 * store (up to the connect timeout each) and went past Prometheus' scrape timeout.
 */
describe('the partitions-ahead gauge while the pool is exhausted', () => {
  let t: TestApp;
  const clock = new FixedClock();
  beforeAll(async () => {
    t = await TestApp.create({ env: { DB_POOL_SIZE: '1' }, clock });
  });
  afterAll(() => t?.close());

  const scrape = () => t.app.get(AppMetrics).registry.metrics();
  const ahead = (text: string, store: string) =>
    Number(new RegExp(`^audit_partitions_ahead_months\\{store="${store}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);

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
      // two months later, the reading is stale: this scrape starts a new one, which waits for the
      // connection in the background, and answers with the last reading meanwhile
      clock.advance(62 * 86_400_000);
      const aged = await scrape();
      expect(ahead(aged, 'audit_events')).toBe(ahead(first, 'audit_events'));
      expect(ahead(aged, 'security_events')).toBe(ahead(first, 'security_events'));
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    // with the connection back, the background reading counts from two months later
    for (let i = 0; i < 500 && ahead(await scrape(), 'audit_events') >= ahead(first, 'audit_events'); i++) await setTimeout(20);
    expect(ahead(await scrape(), 'audit_events')).toBeLessThan(ahead(first, 'audit_events'));
    expect(ahead(await scrape(), 'security_events')).toBeLessThan(ahead(first, 'security_events'));
  });
});
