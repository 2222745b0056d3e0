import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { mssqlDriver } from '../database/dialects/mssql.dialect.js';
import { RefreshTokenEntity } from './refresh-token.entity.js';
import { hashRefreshToken, tokenForUpdate } from './refresh-tokens.service.js';

/** The SQL TypeORM writes for an engine, built without connecting. */
async function lockingSqlFor(type: 'postgres' | 'mssql'): Promise<string> {
  // on SQL Server, with the service's driver setup (mssqlDriver), which sets the write-lock hint
  const ds = new DataSource({ type, entities: [RefreshTokenEntity], ...(type === 'mssql' ? { driver: mssqlDriver() } : {}) } as never);
  // column types are fixed for the engine this process runs on (column-types.ts); only the SQL
  // text matters here, so let the other engine's driver accept them
  ds.driver.supportedDataTypes.push('timestamptz');
  await (ds as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  return tokenForUpdate(ds.manager, 'h').getQueryAndParameters()[0];
}

describe('refresh tokens', () => {
  it("locks the presented token's row with SELECT … FOR UPDATE on PostgreSQL", async () => {
    const sql = await lockingSqlFor('postgres');
    expect(sql).toMatch(/FROM "refresh_tokens" "rt" WHERE "rt"\."token_hash" = \$1 FOR UPDATE$/);
  });

  it("locks the presented token's row with WITH (XLOCK, ROWLOCK) on SQL Server", async () => {
    const sql = await lockingSqlFor('mssql');
    expect(sql).toMatch(/FROM "refresh_tokens" "rt" WITH \(XLOCK, ROWLOCK\) WHERE "rt"\."token_hash" = @0$/);
  });

  it('hashes a token as base64url(SHA-256) — 43 characters, never the token itself', () => {
    const token = 'pX0bq2k7m1dQhI3a2m0sVn8Jd3qvKzq3n6B8mC1vY6E';
    const hash = hashRefreshToken(token);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toBe(token);
    expect(hashRefreshToken(token)).toBe(hash);
  });
});
