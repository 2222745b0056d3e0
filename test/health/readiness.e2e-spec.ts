import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { DataSource, QueryRunner } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { engineOf } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { createTestDatabase, dropTestDatabase } from '../support/test-database.js';

/**
 * `/health/ready` answers for the database, not for the service's pool. The service reaches its
 * database through a TCP relay the test can freeze — a database that is connected but never
 * answers, as in a network partition. With every connection of the pool (DB_POOL_SIZE=2) lent out
 * the probe still answers 200 (under load every replica's pool fills at once); with the relay
 * frozen it answers 503 — with the pool exhausted too — and 200 again once the relay thaws.
 */
describe('readiness', () => {
  let relay: Server;
  let frozen = false;
  const sockets = new Set<Socket>();
  let app: NestFastifyApplication;
  let database: { name: string; url: string };
  const held: QueryRunner[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.url);
    relay = createServer((client) => {
      const server = connect(Number(target.port || 5432), target.hostname);
      for (const [from, to] of [
        [client, server],
        [server, client],
      ] as const) {
        sockets.add(from);
        from.on('data', (chunk: Buffer) => {
          if (!frozen) to.write(chunk); // frozen: everything sent is swallowed, nothing answers
        });
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
      }
    });
    await new Promise<void>((done) => relay.listen(0, '127.0.0.1', done));
    const relayed = new URL(database.url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((relay.address() as { port: number }).port);
    const url = relayed.toString();
    const engine = engineOf(url);
    const config = loadAppConfig({ ...process.env, DATABASE_URL: url, DB_POOL_SIZE: '2' });
    app = await createApp({ config, database: { url, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} } });
  });
  afterAll(async () => {
    frozen = false;
    for (const runner of held)
      if (!runner.isReleased)
        await runner.rollbackTransaction().then(
          () => runner.release(),
          () => undefined,
        );
    await app?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((done) => relay?.close(done));
    if (database) await dropTestDatabase(database.name);
  });

  const ready = async () => {
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    return { status: res.statusCode, body: JSON.parse(res.body) as { info?: unknown; error?: unknown } };
  };
  const exhaustPool = async () => {
    const db = app.get<DataSource>(getDataSourceToken());
    for (let i = 0; i < 2; i++) {
      const runner = db.createQueryRunner();
      await runner.startTransaction(); // an open transaction holds its connection on both engines
      held.push(runner);
    }
  };

  it('answers 200 while every connection of the pool is lent out: the database still answers', async () => {
    expect((await ready()).status).toBe(200);
    await exhaustPool();
    expect(await ready()).toEqual({ status: 200, body: expect.objectContaining({ info: { database: { status: 'up' } } }) });
  }, 30_000);

  it('answers 503 with a generic message while the database does not answer, pool exhausted or not, and 200 once it answers again', async () => {
    frozen = true;
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body.error).toEqual({ database: { status: 'down', message: 'the database does not answer' } });
    frozen = false;
    // the frozen connections stay stuck; the probe opens a fresh one
    let status = 0;
    for (let i = 0; i < 10 && status !== 200; i++) status = (await ready()).status;
    expect(status).toBe(200);
  }, 60_000);
});
