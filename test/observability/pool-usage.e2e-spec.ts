import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { QueryRunner } from 'typeorm';
import { dialectFor } from '../../src/database/dialects/index.js';
import { TestApp } from '../support/test-app.js';

/**
 * The pool gauges (db_pool_connections_in_use / _idle, db_pool_waiting_requests) read the engine's
 * own pool through the dialect: with every connection of the pool (DB_POOL_SIZE=3) lent out, one
 * more acquisition waits, and the dialect reports exactly that.
 */
describe('database pool usage', () => {
  let t: TestApp;
  const held: QueryRunner[] = [];

  beforeAll(async () => {
    t = await TestApp.create({ env: { DB_POOL_SIZE: '3' } });
  });
  afterAll(async () => {
    for (const runner of held) await done(runner);
    await t?.close();
  });

  /** an open transaction holds a connection on both engines (SQL Server's runner acquires none before) */
  const hold = async () => {
    const runner = t.db.createQueryRunner();
    await runner.startTransaction();
    return runner;
  };
  const done = async (runner: QueryRunner) => {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    if (!runner.isReleased) await runner.release();
  };

  it('reports connections lent out, idle, and the acquisitions waiting when the pool is exhausted', async () => {
    const dialect = dialectFor(t.engine);
    for (let i = 0; i < 3; i++) held.push(await hold());
    expect(dialect.poolUsage(t.db)).toEqual({ inUse: 3, idle: 0, waiting: 0 });

    const acquired = hold(); // no connection left: it waits
    for (let i = 0; i < 10 && dialect.poolUsage(t.db).waiting === 0; i++) await new Promise((r) => setImmediate(r));
    expect(dialect.poolUsage(t.db)).toEqual({ inUse: 3, idle: 0, waiting: 1 });

    await done(held.pop()!); // hands its connection to the waiting acquisition
    held.push(await acquired);
    expect(dialect.poolUsage(t.db)).toEqual({ inUse: 3, idle: 0, waiting: 0 });

    await done(held.pop()!);
    expect(dialect.poolUsage(t.db)).toEqual({ inUse: 2, idle: 1, waiting: 0 });
  });
});
