import { describe, expect, it } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { engineOf } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { migrationsFor } from '../../src/database/migrations.js';
import { createTestDatabase, dropTestDatabase } from '../support/test-database.js';
import { connectionSettings } from '../../src/database/database-runtime.js';
import { DataSource as TypeOrmDataSource } from 'typeorm';
import { dropMonthPartition, partitionNames } from '../audit/storage-helpers.js';
import type { TestApp } from '../support/test-app.js';

/**
 * ADMIN_PASSWORD becomes the first administrator's password on an empty users table, so it obeys
 * the password policy there (a password over 72 bytes was stored cut by bcrypt, and sign-in then
 * refused the whole one); once users exist it is never read, and a stale value does not matter.
 */
describe('the bootstrap admin and ADMIN_PASSWORD', () => {
  const start = (url: string, ADMIN_PASSWORD: string) => {
    const engine = engineOf(url);
    const config = loadAppConfig({ ...process.env, DATABASE_URL: url, ADMIN_PASSWORD });
    return createApp({ config, database: { url, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} } });
  };

  it('refuses to start on an empty users table with a password the policy refuses, and ignores it once users exist', async () => {
    const { name, url } = await createTestDatabase();
    try {
      for (const weak of ['Ab1-'.repeat(25), 'short1A', 'alllowercaseletters']) {
        const failed = await start(url, weak).then(
          async (app) => {
            await app.close();
            return undefined;
          },
          (err: Error) => err,
        );
        expect(failed?.message).toMatch(/^ADMIN_PASSWORD must meet the password policy/);
        expect(failed?.message).not.toContain(weak);
      }
      const placeholder = await start(url, 'CHANGE-ME-to-a-strong-password').then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (err: Error) => err,
      );
      expect(placeholder?.message).toMatch(/^ADMIN_PASSWORD is still the example's placeholder/);
      const good = 'Admin-Bootstrap-Clave-1';
      const app = await start(url, good);
      try {
        const [row] = await app.get<DataSource>(getDataSourceToken()).query(`SELECT count(*) AS n FROM users WHERE username = 'admin'`);
        expect(Number((row as { n: number | string }).n)).toBe(1);
        const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: good } });
        expect(login.statusCode).toBe(200);
        // the trail accounts for the first administrator too: its creation, with itself as actor
        const events = await app
          .get<DataSource>(getDataSourceToken())
          .query(
            `SELECT e.actor_user_id, e.target_id, e.metadata, e.correlation_id FROM audit_events e JOIN users u ON u.id = e.actor_user_id WHERE e.action = 'usuario.create' AND u.username = 'admin'`,
          );
        expect(events).toHaveLength(1);
        // no request made it: no correlation id
        expect(events[0].correlation_id).toBeNull();
        expect(String(events[0].target_id)).toBe(String(events[0].actor_user_id));
        const metadata = typeof events[0].metadata === 'string' ? JSON.parse(events[0].metadata) : events[0].metadata;
        expect(metadata).toEqual({
          after: { username: 'admin', nombre: 'Administrador', apellido: 'Sistema', email: 'admin@localhost', rol: 'admin' },
          via: 'first_start',
        });
        expect(JSON.stringify(events)).not.toContain(good);
      } finally {
        await app.close();
      }
      // users exist: a stale weak value is not read
      const again = await start(url, 'short1A');
      await again.close();
    } finally {
      await dropTestDatabase(name);
    }
  }, 60_000);
});

describe('a start with MIGRATIONS_RUN=false on a database that lacks migrations', () => {
  const start = (url: string) => {
    const engine = engineOf(url);
    const config = loadAppConfig({ ...process.env, DATABASE_URL: url, MIGRATIONS_RUN: 'false' });
    return createApp({ config, database: { url, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} } });
  };

  it('starts on a database with every migration, and refuses one that lacks a migration, naming it and the migrate command', async () => {
    const { name, url } = await createTestDatabase();
    try {
      const engine = engineOf(url);
      const shipped = migrationsFor(engine).map((M) => new M().name);
      const last = shipped.at(-1)!;
      const ok = await start(url);
      const db = ok.get<DataSource>(getDataSourceToken());
      await db.query(engine === 'mssql' ? 'DELETE FROM migrations WHERE name = @0' : 'DELETE FROM migrations WHERE name = $1', [last]);
      await ok.close();
      const failed = await start(url).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (err: Error) => err,
      );
      expect(failed?.message).toBe(
        `the database lacks 1 migration(s) of this version: ${last}. MIGRATIONS_RUN=false: apply them first (node dist/src/cli.js migrate, the migrate Job), then start`,
      );
    } finally {
      await dropTestDatabase(name);
    }
  }, 60_000);
});

describe('the first start in a month the event stores have no partition for', () => {
  it('creates the missing partitions before it records the first administrator, instead of failing to start', async () => {
    const { name, url } = await createTestDatabase();
    const engine = engineOf(url);
    const config = loadAppConfig({ ...process.env, DATABASE_URL: url, ADMIN_PASSWORD: 'Admin-Bootstrap-Clave-1' });
    // a database migrated months before its first start: no partition for the current month
    const owner = new TypeOrmDataSource(dialectFor(engine).dataSourceOptions(connectionSettings(config, url, 'test-owner')));
    await owner.initialize();
    const asTestApp = { engine, query: (sql: string, parameters?: unknown[]) => owner.query(sql, parameters) } as unknown as TestApp;
    try {
      const stores = await dropMonthPartition(asTestApp, 'audit_events', new Date());
      const before = await partitionNames(asTestApp, 'audit_events');
      const app = await createApp({ config, database: { url, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} } });
      try {
        const events = await owner.query(
          `SELECT e.action FROM audit_events e JOIN users u ON u.id = e.actor_user_id WHERE e.action = 'usuario.create' AND u.username = 'admin'`,
        );
        expect(events).toHaveLength(1);
        expect((await partitionNames(asTestApp, 'audit_events')).length).toBeGreaterThan(before.length);
        expect(stores).toContain('audit_events');
      } finally {
        await app.close();
      }
    } finally {
      await owner.destroy();
      await dropTestDatabase(name);
    }
  }, 60_000);
});
