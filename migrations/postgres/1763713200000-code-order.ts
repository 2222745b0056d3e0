import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Codes (`codigo` of roles, permissions, medios, secciones, product_types and products, and
 * `ingresos_brutos.provincia`) sort by code point whatever collation the database was created
 * with: digits, upper case, `_`, so `SANTA_CRUZ` comes before `SAN_JUAN` as on SQL Server, whose
 * code columns are binary (migrations/mssql/1763713100000-code-collation.ts). Equality was
 * already exact under any deterministic collation; the order was not — a database created with a
 * linguistic collation (an ICU `es-AR`, recommended so names sort as people read them) ignores `_`
 * at first and put `SAN_JUAN` first. The columns take the "C" collation; PostgreSQL rebuilds the
 * indexes on them. The history tables of roles and permissions follow their tables.
 */
const COLUMNS: ReadonlyArray<readonly [table: string, column: string, type: string]> = [
  ['roles', 'codigo', 'varchar(50)'],
  ['roles_history', 'codigo', 'varchar(50)'],
  ['permissions', 'codigo', 'varchar(100)'],
  ['permissions_history', 'codigo', 'varchar(100)'],
  ['medios', 'codigo', 'varchar(20)'],
  ['secciones', 'codigo', 'varchar(20)'],
  ['product_types', 'codigo', 'varchar(20)'],
  ['products', 'codigo', 'varchar(20)'],
  ['ingresos_brutos', 'provincia', 'varchar(32)'],
];

export class CodeOrder1763713200000 implements MigrationInterface {
  name = 'CodeOrder1763713200000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, column, type] of COLUMNS) await q.query(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type} COLLATE "C"`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, column, type] of COLUMNS) await q.query(`ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${type} COLLATE "default"`);
    // Changing the column's type re-parses the checks on it: the IN list of provincias comes back
    // as an equivalent but differently cast expression. Re-adding it as 1763712300000-medios-fiscal.ts
    // wrote it leaves the constraint exactly as it was before the up.
    await q.query(`
      ALTER TABLE ingresos_brutos DROP CONSTRAINT ck_ingresos_brutos_provincia;
      ALTER TABLE ingresos_brutos ADD CONSTRAINT ck_ingresos_brutos_provincia CHECK (provincia IN (
        'BUENOS_AIRES', 'CABA', 'CATAMARCA', 'CHACO', 'CHUBUT', 'CORDOBA', 'CORRIENTES', 'ENTRE_RIOS',
        'FORMOSA', 'JUJUY', 'LA_PAMPA', 'LA_RIOJA', 'MENDOZA', 'MISIONES', 'NEUQUEN', 'RIO_NEGRO',
        'SALTA', 'SAN_JUAN', 'SAN_LUIS', 'SANTA_CRUZ', 'SANTA_FE', 'SANTIAGO_DEL_ESTERO',
        'TIERRA_DEL_FUEGO', 'TUCUMAN'));
    `);
  }
}
