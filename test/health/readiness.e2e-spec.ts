import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { QueryRunner } from 'typeorm';
import { TestApp } from '../support/test-app.js';

/**
 * `/health/ready` answers for the database, not for the service's pool: with every connection of
 * the pool (DB_POOL_SIZE=2) lent out, its ping waits behind them, and the probe still answers 200
 * (`pool: "exhausted"`) after its 3 s — under load every replica's pool fills at once, and going
 * unready would leave the Service without endpoints.
 */
describe('readiness with the pool exhausted', () => {
  let t: TestApp;
  const held: QueryRunner[] = [];

  beforeAll(async () => {
    t = await TestApp.create({ env: { DB_POOL_SIZE: '2' } });
  });
  afterAll(async () => {
    for (const runner of held) if (!runner.isReleased) await runner.rollbackTransaction().then(() => runner.release());
    await t?.close();
  });

  it('answers 200 while every connection is lent out, saying the pool is exhausted; plain up once one is free', async () => {
    expect((await t.get('/health/ready')).body).toEqual({
      status: 'ok',
      info: { database: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' } },
    });
    for (let i = 0; i < 2; i++) {
      const runner = t.db.createQueryRunner();
      await runner.startTransaction(); // an open transaction holds its connection on both engines
      held.push(runner);
    }
    const busy = await t.get('/health/ready');
    expect(busy.status).toBe(200);
    expect(busy.body.info).toEqual({ database: { status: 'up', pool: 'exhausted' } });

    for (const runner of held.splice(0)) await runner.rollbackTransaction().then(() => runner.release());
    expect((await t.get('/health/ready')).body.info).toEqual({ database: { status: 'up' } });
  }, 30_000);
});
