import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog schema on SQL Server: the counterpart of migrations/postgres/1763712400000-catalog.ts
 * (same tables and columns).
 *
 * - PostgreSQL's expression + partial unique index on rubros ((coalesce(parent_id, 0)),
 *   (lower(nombre))) WHERE activo becomes a filtered unique index on the plain columns
 *   (parent_id, nombre) WHERE activo = 1:
 *   - a SQL Server unique index treats NULLs as equal, so the roots (parent_id NULL) clash with
 *     each other exactly as coalesce(parent_id, 0) makes them clash on PostgreSQL;
 *   - nombre has an explicit case-insensitive, accent-sensitive collation, so the index compares
 *     names as lower(nombre) does, whatever the database's default collation (differences: a
 *     CI collation also ignores trailing spaces).
 *   No computed columns, so no restriction of filtered indexes on computed columns applies.
 * - length(nombre) > 0 → DATALENGTH(nombre) > 0 (LEN would ignore trailing spaces).
 * - The ~ checks on codigo → LEN + NOT LIKE under a binary collation.
 * - numeric(12, 2) → decimal(12, 2); date stays date.
 */
export class Catalog1763712400000 implements MigrationInterface {
  name = 'Catalog1763712400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- ---------------------------------------------------------------- rubros (adjacency tree)
      CREATE TABLE dbo.rubros (
        id          int IDENTITY(1, 1) NOT NULL,
        -- case-insensitive: sibling names are unique regardless of case (see the header)
        nombre      nvarchar(100) COLLATE Latin1_General_100_CI_AS NOT NULL,
        parent_id   int NULL CONSTRAINT fk_rubros_parent REFERENCES dbo.rubros (id),
        activo      bit           NOT NULL CONSTRAINT df_rubros_activo DEFAULT 1,
        created_at  datetime2(7)  NOT NULL CONSTRAINT df_rubros_created_at DEFAULT SYSUTCDATETIME(),
        updated_at  datetime2(7)  NOT NULL CONSTRAINT df_rubros_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_rubros PRIMARY KEY CLUSTERED (id),
        CONSTRAINT ck_rubros_parent_not_self CHECK (parent_id IS NULL OR parent_id <> id),
        CONSTRAINT ck_rubros_nombre CHECK (DATALENGTH(nombre) > 0)
      );
      CREATE INDEX ix_rubros_parent ON dbo.rubros (parent_id);
      -- Sibling names are unique among ACTIVE rubros under one parent (roots: parent_id NULL,
      -- equal to each other in a unique index), case-insensitively (the column's collation).
      CREATE UNIQUE INDEX uq_rubros_active_sibling_nombre ON dbo.rubros (parent_id, nombre) WHERE activo = 1;

      -- ---------------------------------------------------------------- product types
      CREATE TABLE dbo.product_types (
        id           int IDENTITY(1, 1) NOT NULL,
        codigo       nvarchar(20)  NOT NULL,
        nombre       nvarchar(100) NOT NULL,
        descripcion  nvarchar(500) NOT NULL CONSTRAINT df_product_types_descripcion DEFAULT N'',
        activo       bit           NOT NULL CONSTRAINT df_product_types_activo DEFAULT 1,
        created_at   datetime2(7)  NOT NULL CONSTRAINT df_product_types_created_at DEFAULT SYSUTCDATETIME(),
        updated_at   datetime2(7)  NOT NULL CONSTRAINT df_product_types_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_product_types PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_product_types_codigo UNIQUE (codigo),
        CONSTRAINT ck_product_types_codigo CHECK (
          LEN(codigo) BETWEEN 1 AND 20
          AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%')
      );

      -- ---------------------------------------------------------------- products
      CREATE TABLE dbo.products (
        id               int IDENTITY(1, 1) NOT NULL,
        codigo           nvarchar(20)  NOT NULL,
        nombre           nvarchar(200) NOT NULL,
        rubro_id         int NOT NULL CONSTRAINT fk_products_rubro REFERENCES dbo.rubros (id),
        product_type_id  int NOT NULL CONSTRAINT fk_products_product_type REFERENCES dbo.product_types (id),
        activo           bit           NOT NULL CONSTRAINT df_products_activo DEFAULT 1,
        created_at       datetime2(7)  NOT NULL CONSTRAINT df_products_created_at DEFAULT SYSUTCDATETIME(),
        updated_at       datetime2(7)  NOT NULL CONSTRAINT df_products_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_products PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_products_codigo UNIQUE (codigo),
        CONSTRAINT ck_products_codigo CHECK (
          LEN(codigo) BETWEEN 1 AND 20
          AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%')
      );
      CREATE INDEX ix_products_rubro ON dbo.products (rubro_id, activo);
      CREATE INDEX ix_products_product_type ON dbo.products (product_type_id, activo);

      -- ---------------------------------------------------------------- product prices (append-only)
      CREATE TABLE dbo.product_prices (
        id              int IDENTITY(1, 1) NOT NULL,
        product_id      int NOT NULL CONSTRAINT fk_product_prices_product REFERENCES dbo.products (id),
        fecha_vigencia  date NOT NULL,
        monto           decimal(12, 2) NOT NULL,
        created_at      datetime2(7) NOT NULL CONSTRAINT df_product_prices_created_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_product_prices PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_product_prices_product_fecha UNIQUE (product_id, fecha_vigencia),
        CONSTRAINT ck_product_prices_monto CHECK (monto > 0)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS dbo.product_prices, dbo.products, dbo.product_types, dbo.rubros`);
  }
}
