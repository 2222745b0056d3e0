import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings, runMigrations } from '../../src/database/database-runtime.js';
import { withDatabase } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { onlyOn, testEngine } from '../support/test-database.js';

/**
 * Codes sort by code point on every database (docs/api.md "Lists"), including one created with a
 * linguistic collation as docs/operations.md recommends for names: an ICU `es-AR` database, whose
 * own order ignores `_` at first and puts `SAN_JUAN` before `SANTA_CRUZ`. The migrations run on
 * such a database from scratch, then the code columns are read back in the order the lists use.
 */
const CODE_COLUMNS = [
  ['roles', 'codigo'],
  ['roles_history', 'codigo'],
  ['permissions', 'codigo'],
  ['permissions_history', 'codigo'],
  ['medios', 'codigo'],
  ['secciones', 'codigo'],
  ['product_types', 'codigo'],
  ['products', 'codigo'],
  ['ingresos_brutos', 'provincia'],
] as const;

const itPg = onlyOn('postgres', 'the collations of PostgreSQL databases');

describe('code columns sort by code point whatever the database collation', () => {
  const config = loadAppConfig(process.env);
  const serverUrl = process.env.TEST_SERVER_URL as string;
  const name = `${process.env.TEST_RUN_ID}_icu_${process.pid}`;
  let admin: DataSource | undefined;
  let db: DataSource | undefined;

  beforeAll(async () => {
    if (testEngine() !== 'postgres') return;
    admin = new DataSource(dialectFor('postgres').dataSourceOptions(connectionSettings(config, serverUrl, 'medios-test-admin')));
    await admin.initialize();
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'es-AR' LOCALE 'C'`);
    const url = withDatabase(serverUrl, name);
    await runMigrations(config, url);
    db = new DataSource(dialectFor('postgres').dataSourceOptions(connectionSettings(config, url, 'medios-test-schema')));
    await db.initialize();
  });

  afterAll(async () => {
    await db?.destroy();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.destroy();
    }
  });

  itPg('the database itself sorts linguistically (the case the columns must not follow)', async () => {
    const rows: Array<{ c: string }> = await db!.query(`SELECT c FROM (VALUES ('SANTA_CRUZ'), ('SAN_JUAN')) v(c) ORDER BY c`);
    expect(rows.map((r) => r.c)).toEqual(['SAN_JUAN', 'SANTA_CRUZ']);
  });

  itPg('every code column has the "C" collation', async () => {
    for (const [table, column] of CODE_COLUMNS) {
      const [row]: Array<{ collation: string }> = await db!.query(
        `SELECT coll.collname AS collation FROM pg_attribute a JOIN pg_collation coll ON coll.oid = a.attcollation
          WHERE a.attrelid = $1::regclass AND a.attname = $2`,
        [table, column],
      );
      expect({ table, column, collation: row?.collation }).toEqual({ table, column, collation: 'C' });
    }
  });

  itPg('medios and ingresos brutos come back in code-point order, digits, upper case, then _', async () => {
    const now = new Date();
    for (const codigo of ['SAN_LUIS', 'SANTA_FE', 'SAN_JUAN', 'SANTA_CRUZ', 'SAN9'])
      await db!.query(`INSERT INTO medios (codigo, nombre, activo, created_at, updated_at) VALUES ($1, $1, true, $2, $2)`, [codigo, now]);
    const medios: Array<{ codigo: string }> = await db!.query(`SELECT codigo FROM medios ORDER BY codigo`);
    expect(medios.map((r) => r.codigo)).toEqual(['SAN9', 'SANTA_CRUZ', 'SANTA_FE', 'SAN_JUAN', 'SAN_LUIS']);

    for (const provincia of ['SAN_JUAN', 'SANTA_CRUZ'])
      await db!.query(
        `INSERT INTO ingresos_brutos (provincia, descripcion, alicuota, activo, created_at, updated_at) VALUES ($1, 'x', 1, true, $2, $2)`,
        [provincia, now],
      );
    const entries: Array<{ provincia: string }> = await db!.query(`SELECT provincia FROM ingresos_brutos ORDER BY provincia`);
    expect(entries.map((r) => r.provincia)).toEqual(['SANTA_CRUZ', 'SAN_JUAN']);
  });
});
