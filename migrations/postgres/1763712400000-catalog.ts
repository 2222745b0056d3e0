import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog schema on PostgreSQL (docs/api.md "Catalog"): the rubro tree (adjacency list),
 * product types, products and the append-only price history.
 *
 * Notes for the SQL Server mirror (migrations/mssql):
 * - boolean → bit, serial → int IDENTITY, timestamptz → datetime2, varchar → nvarchar.
 * - uq_rubros_active_sibling_nombre is a PostgreSQL expression index with a WHERE clause. On SQL
 *   Server use two PERSISTED computed columns, e.g.
 *     parent_key  AS ISNULL(parent_id, 0) PERSISTED,
 *     nombre_key  AS LOWER(nombre) PERSISTED,
 *   and a filtered unique index: CREATE UNIQUE INDEX uq_rubros_active_sibling_nombre
 *     ON rubros (parent_key, nombre_key) WHERE activo = 1;
 *   (the connection needs the usual SET options for indexes on computed columns: QUOTED_IDENTIFIER,
 *   ANSI_NULLS… ON, which tedious sets by default).
 * - The ~ regular-expression CHECKs on codigo are PostgreSQL-only; on SQL Server write them as
 *   LEN(codigo) BETWEEN 1 AND 20 AND codigo NOT LIKE '%[^A-Z0-9_]%' COLLATE Latin1_General_BIN.
 * - avisos gets no foreign key: it belongs to the sales side and is only read here.
 */
export class Catalog1763712400000 implements MigrationInterface {
  name = 'Catalog1763712400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- ---------------------------------------------------------------- rubros (adjacency tree)
      CREATE TABLE rubros (
        id          serial PRIMARY KEY,
        nombre      varchar(100) NOT NULL,
        parent_id   int NULL REFERENCES rubros (id),
        activo      boolean      NOT NULL DEFAULT true,
        created_at  timestamptz  NOT NULL DEFAULT now(),
        updated_at  timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT ck_rubros_parent_not_self CHECK (parent_id IS NULL OR parent_id <> id),
        CONSTRAINT ck_rubros_nombre CHECK (length(nombre) > 0)
      );
      CREATE INDEX ix_rubros_parent ON rubros (parent_id);
      -- Sibling names are unique among ACTIVE rubros under one parent, case-insensitively; roots
      -- share the parent key 0. The store enforces it, so concurrent creates cannot both pass.
      -- PostgreSQL-specific (expression + partial index); see the header for SQL Server.
      CREATE UNIQUE INDEX uq_rubros_active_sibling_nombre
        ON rubros ((coalesce(parent_id, 0)), (lower(nombre))) WHERE activo;

      -- ---------------------------------------------------------------- product types
      CREATE TABLE product_types (
        id           serial PRIMARY KEY,
        codigo       varchar(20)  NOT NULL,
        nombre       varchar(100) NOT NULL,
        descripcion  varchar(500) NOT NULL DEFAULT '',
        activo       boolean      NOT NULL DEFAULT true,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        updated_at   timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT uq_product_types_codigo UNIQUE (codigo),
        CONSTRAINT ck_product_types_codigo CHECK (codigo ~ '^[A-Z0-9_]{1,20}$')
      );

      -- ---------------------------------------------------------------- products
      CREATE TABLE products (
        id               serial PRIMARY KEY,
        codigo           varchar(20)  NOT NULL,
        nombre           varchar(200) NOT NULL,
        rubro_id         int NOT NULL REFERENCES rubros (id),
        product_type_id  int NOT NULL REFERENCES product_types (id),
        activo           boolean      NOT NULL DEFAULT true,
        created_at       timestamptz  NOT NULL DEFAULT now(),
        updated_at       timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT uq_products_codigo UNIQUE (codigo),
        CONSTRAINT ck_products_codigo CHECK (codigo ~ '^[A-Z0-9_]{1,20}$')
      );
      CREATE INDEX ix_products_rubro ON products (rubro_id, activo);
      CREATE INDEX ix_products_product_type ON products (product_type_id, activo);

      -- ---------------------------------------------------------------- product prices (append-only)
      CREATE TABLE product_prices (
        id              serial PRIMARY KEY,
        product_id      int NOT NULL REFERENCES products (id),
        fecha_vigencia  date NOT NULL,
        monto           numeric(12, 2) NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_product_prices_product_fecha UNIQUE (product_id, fecha_vigencia),
        CONSTRAINT ck_product_prices_monto CHECK (monto > 0)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS product_prices, products, product_types, rubros`);
  }
}
