import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DataSource, type EntityMetadata } from 'typeorm';
import { mssqlDriver } from '../../src/database/dialects/mssql.dialect.js';

/**
 * TypeORM validates every entity column type against the driver when the application starts: a
 * type SQL Server does not have (e.g. `boolean`, `timestamptz`) stops the service from booting on
 * SQL Server. This builds the metadata of every entity of src/ with the SQL Server driver (no
 * server needed), with the column types column-types.ts picks for an mssql:// DATABASE_URL.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const entityFiles = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.entity.ts'))
  .sort();

describe('entities on SQL Server', () => {
  const saved = process.env.DATABASE_URL;
  let entities: Array<abstract new (...args: never[]) => unknown>;
  let mssql: DataSource;

  beforeAll(async () => {
    // column-types.ts decides TIMESTAMP & co. from DATABASE_URL when it is first imported
    process.env.DATABASE_URL = 'mssql://sa:unused@localhost:1433/master';
    try {
      entities = [];
      for (const f of entityFiles) {
        const module = (await import(pathToFileURL(join(root, 'src', f)).href)) as Record<string, unknown>;
        entities.push(
          ...Object.values(module).filter((v): v is abstract new (...args: never[]) => unknown => typeof v === 'function' && /Entity$/.test(v.name)),
        );
      }
    } finally {
      process.env.DATABASE_URL = saved;
    }
    mssql = new DataSource({
      type: 'mssql',
      driver: mssqlDriver(),
      host: 'localhost',
      username: 'sa',
      password: 'unused',
      entities,
      options: { useUTC: true },
    } as never);
  });
  afterAll(() => {
    process.env.DATABASE_URL = saved;
  });

  it('finds the entities of every module', () => {
    expect(entityFiles.length).toBeGreaterThanOrEqual(6);
    expect(entities.length).toBeGreaterThanOrEqual(entityFiles.length);
  });

  it('maps every entity column to a type the SQL Server driver supports, so the service boots there', async () => {
    // the metadata is assigned before TypeORM validates it; read every bad column, not the first
    const build = (mssql as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas.bind(mssql);
    const failure = await build().then(
      () => null,
      (err: Error) => err.message,
    );
    const unsupported: string[] = [];
    expect(mssql.entityMetadatas.length).toBe(entities.length);
    for (const m of mssql.entityMetadatas as EntityMetadata[]) {
      for (const c of m.columns) {
        const type = mssql.driver.normalizeType(c);
        if (!mssql.driver.supportedDataTypes.includes(type as never)) unsupported.push(`${m.name}.${c.propertyName}: ${type}`);
      }
    }
    expect(unsupported).toEqual([]);
    expect(failure).toBeNull();
  });

  it('locks a row for a change exclusively (XLOCK), so a change waits for a child holding the row shared (HOLDLOCK), as FOR UPDATE waits for FOR SHARE', async () => {
    if (!mssql.entityMetadatas.length) await (mssql as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
    const table = mssql.entityMetadatas.find((m) => m.tableName === 'product_types')!;
    const locked = (mode: 'pessimistic_read' | 'pessimistic_write') =>
      mssql.createQueryBuilder(table.target, 't').setLock(mode).where('t.id = :id', { id: 1 }).getQuery();
    expect(locked('pessimistic_write')).toContain(' WITH (XLOCK, ROWLOCK)');
    expect(locked('pessimistic_write')).not.toContain('UPDLOCK');
    expect(locked('pessimistic_read')).toContain(' WITH (HOLDLOCK, ROWLOCK)');
    expect(mssql.createQueryBuilder(table.target, 't').where('t.id = :id', { id: 1 }).getQuery()).not.toContain(' WITH (');
  });
});
