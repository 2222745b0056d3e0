import { describe, expect, it } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { engineOf } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { createTestDatabase, dropTestDatabase } from '../support/test-database.js';

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
      const good = 'Admin-Bootstrap-Clave-1';
      const app = await start(url, good);
      try {
        const [row] = await app.get<DataSource>(getDataSourceToken()).query(`SELECT count(*) AS n FROM users WHERE username = 'admin'`);
        expect(Number((row as { n: number | string }).n)).toBe(1);
        const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: good } });
        expect(login.statusCode).toBe(200);
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
