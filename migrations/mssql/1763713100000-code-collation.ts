import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Codes compare case-sensitively on SQL Server, as on PostgreSQL: `codigo` of roles, permissions,
 * medios, secciones, product_types and products, and `provincia` of ingresos_brutos, take the
 * binary collation Latin1_General_100_BIN2. Under the database's default (case-insensitive)
 * collation 'Diario_Sur' and 'DIARIO_SUR' were one code for the unique constraints and a lookup
 * by code, and 'caba' passed the provincia list; PostgreSQL, whose text comparison is
 * case-sensitive, treats them as different values. The counterpart of
 * migrations/postgres/1763713100000-code-collation.ts (a no-op there).
 *
 * SQL Server refuses to change a column's collation while an index, a UNIQUE or a CHECK
 * constraint uses the column (automatic statistics are dropped by the engine), so each is dropped
 * and recreated as it was. roles and permissions are system-versioned: ALTER COLUMN on the
 * temporal table is propagated to its history table by the engine (no SYSTEM_VERSIONING = OFF
 * needed), but the history table's own index on the column (ix_roles_history_codigo) is dropped
 * and recreated around it. No existing row can violate the recreated unique constraints (a
 * binary comparison distinguishes more values than a case-insensitive one); a provincia stored
 * in another case than the list's would fail the recreated check and stop the migration.
 */
export class CodeCollation1763713100000 implements MigrationInterface {
  name = 'CodeCollation1763713100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX ix_roles_history_codigo ON dbo.roles_history;
      ALTER TABLE dbo.roles DROP CONSTRAINT uq_roles_codigo;
      ALTER TABLE dbo.roles DROP CONSTRAINT ck_roles_codigo;
      ALTER TABLE dbo.roles ALTER COLUMN codigo nvarchar(50) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.roles ADD CONSTRAINT uq_roles_codigo UNIQUE (codigo);
      ALTER TABLE dbo.roles ADD CONSTRAINT ck_roles_codigo CHECK (
        codigo COLLATE Latin1_General_100_BIN2 LIKE N'[a-z]%'
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^a-z0-9_]%');
      CREATE INDEX ix_roles_history_codigo ON dbo.roles_history (codigo, valid_to);

      ALTER TABLE dbo.permissions DROP CONSTRAINT uq_permissions_codigo;
      ALTER TABLE dbo.permissions ALTER COLUMN codigo nvarchar(100) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.permissions ADD CONSTRAINT uq_permissions_codigo UNIQUE (codigo);

      ALTER TABLE dbo.medios DROP CONSTRAINT uq_medios_codigo;
      ALTER TABLE dbo.medios DROP CONSTRAINT ck_medios_codigo;
      ALTER TABLE dbo.medios ALTER COLUMN codigo nvarchar(20) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.medios ADD CONSTRAINT uq_medios_codigo UNIQUE (codigo);
      ALTER TABLE dbo.medios ADD CONSTRAINT ck_medios_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.secciones DROP CONSTRAINT uq_secciones_medio_codigo;
      ALTER TABLE dbo.secciones DROP CONSTRAINT ck_secciones_codigo;
      ALTER TABLE dbo.secciones ALTER COLUMN codigo nvarchar(20) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.secciones ADD CONSTRAINT uq_secciones_medio_codigo UNIQUE (medio_id, codigo);
      ALTER TABLE dbo.secciones ADD CONSTRAINT ck_secciones_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.product_types DROP CONSTRAINT uq_product_types_codigo;
      ALTER TABLE dbo.product_types DROP CONSTRAINT ck_product_types_codigo;
      ALTER TABLE dbo.product_types ALTER COLUMN codigo nvarchar(20) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.product_types ADD CONSTRAINT uq_product_types_codigo UNIQUE (codigo);
      ALTER TABLE dbo.product_types ADD CONSTRAINT ck_product_types_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.products DROP CONSTRAINT uq_products_codigo;
      ALTER TABLE dbo.products DROP CONSTRAINT ck_products_codigo;
      ALTER TABLE dbo.products ALTER COLUMN codigo nvarchar(20) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.products ADD CONSTRAINT uq_products_codigo UNIQUE (codigo);
      ALTER TABLE dbo.products ADD CONSTRAINT ck_products_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      DROP INDEX uq_ingresos_brutos_provincia_activa ON dbo.ingresos_brutos;
      ALTER TABLE dbo.ingresos_brutos DROP CONSTRAINT ck_ingresos_brutos_provincia;
      ALTER TABLE dbo.ingresos_brutos ALTER COLUMN provincia nvarchar(32) COLLATE Latin1_General_100_BIN2 NOT NULL;
      ALTER TABLE dbo.ingresos_brutos ADD CONSTRAINT ck_ingresos_brutos_provincia CHECK (provincia IN (
        N'BUENOS_AIRES', N'CABA', N'CATAMARCA', N'CHACO', N'CHUBUT', N'CORDOBA', N'CORRIENTES', N'ENTRE_RIOS',
        N'FORMOSA', N'JUJUY', N'LA_PAMPA', N'LA_RIOJA', N'MENDOZA', N'MISIONES', N'NEUQUEN', N'RIO_NEGRO',
        N'SALTA', N'SAN_JUAN', N'SAN_LUIS', N'SANTA_CRUZ', N'SANTA_FE', N'SANTIAGO_DEL_ESTERO',
        N'TIERRA_DEL_FUEGO', N'TUCUMAN'));
      CREATE UNIQUE INDEX uq_ingresos_brutos_provincia_activa ON dbo.ingresos_brutos (provincia) WHERE activo = 1;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    // back to the database's default collation (DATABASE_DEFAULT), constraints and indexes as before
    await q.query(`
      DROP INDEX uq_ingresos_brutos_provincia_activa ON dbo.ingresos_brutos;
      ALTER TABLE dbo.ingresos_brutos DROP CONSTRAINT ck_ingresos_brutos_provincia;
      ALTER TABLE dbo.ingresos_brutos ALTER COLUMN provincia nvarchar(32) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.ingresos_brutos ADD CONSTRAINT ck_ingresos_brutos_provincia CHECK (provincia IN (
        N'BUENOS_AIRES', N'CABA', N'CATAMARCA', N'CHACO', N'CHUBUT', N'CORDOBA', N'CORRIENTES', N'ENTRE_RIOS',
        N'FORMOSA', N'JUJUY', N'LA_PAMPA', N'LA_RIOJA', N'MENDOZA', N'MISIONES', N'NEUQUEN', N'RIO_NEGRO',
        N'SALTA', N'SAN_JUAN', N'SAN_LUIS', N'SANTA_CRUZ', N'SANTA_FE', N'SANTIAGO_DEL_ESTERO',
        N'TIERRA_DEL_FUEGO', N'TUCUMAN'));
      CREATE UNIQUE INDEX uq_ingresos_brutos_provincia_activa ON dbo.ingresos_brutos (provincia) WHERE activo = 1;

      ALTER TABLE dbo.products DROP CONSTRAINT uq_products_codigo;
      ALTER TABLE dbo.products DROP CONSTRAINT ck_products_codigo;
      ALTER TABLE dbo.products ALTER COLUMN codigo nvarchar(20) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.products ADD CONSTRAINT uq_products_codigo UNIQUE (codigo);
      ALTER TABLE dbo.products ADD CONSTRAINT ck_products_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.product_types DROP CONSTRAINT uq_product_types_codigo;
      ALTER TABLE dbo.product_types DROP CONSTRAINT ck_product_types_codigo;
      ALTER TABLE dbo.product_types ALTER COLUMN codigo nvarchar(20) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.product_types ADD CONSTRAINT uq_product_types_codigo UNIQUE (codigo);
      ALTER TABLE dbo.product_types ADD CONSTRAINT ck_product_types_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.secciones DROP CONSTRAINT uq_secciones_medio_codigo;
      ALTER TABLE dbo.secciones DROP CONSTRAINT ck_secciones_codigo;
      ALTER TABLE dbo.secciones ALTER COLUMN codigo nvarchar(20) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.secciones ADD CONSTRAINT uq_secciones_medio_codigo UNIQUE (medio_id, codigo);
      ALTER TABLE dbo.secciones ADD CONSTRAINT ck_secciones_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.medios DROP CONSTRAINT uq_medios_codigo;
      ALTER TABLE dbo.medios DROP CONSTRAINT ck_medios_codigo;
      ALTER TABLE dbo.medios ALTER COLUMN codigo nvarchar(20) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.medios ADD CONSTRAINT uq_medios_codigo UNIQUE (codigo);
      ALTER TABLE dbo.medios ADD CONSTRAINT ck_medios_codigo CHECK (
        LEN(codigo) BETWEEN 1 AND 20
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%');

      ALTER TABLE dbo.permissions DROP CONSTRAINT uq_permissions_codigo;
      ALTER TABLE dbo.permissions ALTER COLUMN codigo nvarchar(100) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.permissions ADD CONSTRAINT uq_permissions_codigo UNIQUE (codigo);

      DROP INDEX ix_roles_history_codigo ON dbo.roles_history;
      ALTER TABLE dbo.roles DROP CONSTRAINT uq_roles_codigo;
      ALTER TABLE dbo.roles DROP CONSTRAINT ck_roles_codigo;
      ALTER TABLE dbo.roles ALTER COLUMN codigo nvarchar(50) COLLATE DATABASE_DEFAULT NOT NULL;
      ALTER TABLE dbo.roles ADD CONSTRAINT uq_roles_codigo UNIQUE (codigo);
      ALTER TABLE dbo.roles ADD CONSTRAINT ck_roles_codigo CHECK (
        codigo COLLATE Latin1_General_100_BIN2 LIKE N'[a-z]%'
        AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^a-z0-9_]%');
      CREATE INDEX ix_roles_history_codigo ON dbo.roles_history (codigo, valid_to);
    `);
  }
}
