import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables of the resources whose changes accept If-Match (docs/concurrency.md). */
export const VERSIONED_TABLES = [
  'users',
  'roles',
  'medios',
  'secciones',
  'puntos_de_venta',
  'tipos_iva',
  'ingresos_brutos',
  'rubros',
  'product_types',
  'products',
] as const;

/** Tables whose old rows the versioning trigger copies into `<table>_history`. */
const WITH_HISTORY = new Set(['users', 'roles']);

/**
 * Row versions for lost-update protection: `version` (starting at 1) on every table of a resource
 * that accepts If-Match. Each change increments it and compares it in its UPDATE's WHERE.
 *
 * users and roles are versioned with history tables: the trigger copies the old row with
 * `INSERT INTO <t>_history SELECT (OLD).*`, by position, so the history table gets the same column
 * at the same (last) position, in the same migration.
 */
export class RowVersions1763712900000 implements MigrationInterface {
  name = 'RowVersions1763712900000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of VERSIONED_TABLES) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN version int NOT NULL DEFAULT 1`);
      if (WITH_HISTORY.has(table)) await q.query(`ALTER TABLE ${table}_history ADD COLUMN version int NOT NULL DEFAULT 1`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [...VERSIONED_TABLES].reverse()) {
      if (WITH_HISTORY.has(table)) await q.query(`ALTER TABLE ${table}_history DROP COLUMN version`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN version`);
    }
  }
}
