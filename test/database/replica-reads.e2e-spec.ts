import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConfigValidationError, loadAppConfig } from '../../src/common/config/index.js';
import { ReplicaReads } from '../../src/database/replica-reads.js';
import { TestApp } from '../support/test-app.js';

/**
 * Routing of ReplicaReads without a real standby (test/replicas proves it against one): a
 * "replica" URL that points at the primary's own database (lag 0: not in recovery) is used for
 * the routed reads but never inside a transaction; one nobody answers on makes those reads fall
 * back to the primary, and the API still answers 200.
 */
describe('read replica routing', () => {
  describe('configuration', () => {
    const base = { NODE_ENV: 'test', DATABASE_URL: 'postgres://u@db:5432/medios' };

    it('defaults the lag limit to 30 s and the replica pool to DB_POOL_SIZE', () => {
      expect(loadAppConfig({ ...base, DATABASE_READ_URL: 'postgres://u@replica:5432/medios', DB_POOL_SIZE: '7' }).readReplica).toEqual({
        url: 'postgres://u@replica:5432/medios',
        maxLagSeconds: 30,
        poolSize: 7,
      });
      expect(loadAppConfig(base).readReplica).toBeUndefined();
    });

    it('refuses a replica of another engine, a replica without DATABASE_URL, and a bad lag limit', () => {
      expect(() => loadAppConfig({ ...base, DATABASE_READ_URL: 'mssql://u:p@replica/medios' })).toThrow(ConfigValidationError);
      expect(() => loadAppConfig({ NODE_ENV: 'test', DATABASE_READ_URL: 'postgres://u@replica/medios' })).toThrow(
        /DATABASE_READ_URL needs DATABASE_URL/,
      );
      expect(() => loadAppConfig({ ...base, DATABASE_READ_URL: 'postgres://u@replica/medios', DATABASE_READ_MAX_LAG_SECONDS: '-1' })).toThrow(
        /DATABASE_READ_MAX_LAG_SECONDS/,
      );
    });
  });

  describe('a replica URL on the primary itself', () => {
    let t: TestApp;
    let token: string;

    beforeAll(async () => {
      t = await TestApp.create({ env: (url) => ({ DATABASE_READ_URL: url }) });
      token = await t.adminToken();
    });
    afterAll(() => t.close());

    it('serves the audit query and the paged lists from the replica pool (its own sessions)', async () => {
      const reads = t.app.get(ReplicaReads);
      for (const url of ['/api/v1/audit/events', '/api/v1/users', '/api/v1/products', '/api/v1/product-types', '/api/v1/admin/puntos-de-venta'])
        expect((await t.get(url, { token })).status).toBe(200);
      expect(reads.lastState).toMatchObject({ usable: true, lagSeconds: 0 });
      const sessions = await t.query(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'medios-admin-api-replica' AND datname = current_database()",
      );
      expect(Number(sessions[0].n)).toBeGreaterThan(0);
    });

    it('reads inside a transaction (a mutating request) from the transaction, never from the replica', async () => {
      const reads = t.app.get(ReplicaReads);
      const txHost = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
      await t.get('/api/v1/audit/events', { token });
      let used: unknown;
      await txHost.withTransaction(async () => {
        await reads.read(async (db) => {
          used = db;
        });
        expect(used).toBe(txHost.tx);
      });
      await reads.read(async (db) => {
        used = db;
      });
      expect(used).not.toBe(txHost.tx);
    });

    it('the replica pool is read-only: a write through it fails, so nothing can write to a replica by mistake', async () => {
      const reads = t.app.get(ReplicaReads);
      const db = await new Promise<import('typeorm').EntityManager>((done) => void reads.read(async (m) => done(m)));
      await expect(db.query("UPDATE users SET nombre = nombre WHERE username = 'admin'")).rejects.toThrow(/read-only transaction/);
    });
  });

  describe('a replica nobody answers on', () => {
    let t: TestApp;
    let token: string;

    beforeAll(async () => {
      t = await TestApp.create({ env: { DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:1/medios' } });
      token = await t.adminToken();
    });
    afterAll(() => t.close());

    it('answers the audit query and the paged lists from the primary with 200, never an error', async () => {
      for (const url of ['/api/v1/audit/events', '/api/v1/users', '/api/v1/products', '/api/v1/product-types', '/api/v1/admin/puntos-de-venta'])
        expect((await t.get(url, { token })).status).toBe(200);
      expect(t.app.get(ReplicaReads).lastState).toMatchObject({ usable: false, lagSeconds: null });
    });
  });
});
