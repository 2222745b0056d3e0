import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Medios, their secciones and puntos de venta, and the fiscal reference tables (tipos de IVA,
 * ingresos brutos) on PostgreSQL. Every unique rule of the contract is a constraint here, so it
 * holds under concurrent requests; the services map the violation to 409 `duplicado`.
 *
 * PostgreSQL-specific, to mirror on SQL Server:
 * - the `~` regular-expression checks on codigo (SQL Server: `codigo NOT LIKE '%[^A-Z0-9_]%'`
 *   with a case-sensitive (binary) collation, plus `LEN(codigo) BETWEEN 1 AND 20`);
 * - the partial unique index `uq_ingresos_brutos_provincia_activa ... WHERE activo`
 *   (SQL Server: a filtered unique index `WHERE activo = 1`).
 */
export class MediosFiscal1763712300000 implements MigrationInterface {
  name = 'MediosFiscal1763712300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- ---------------------------------------------------------------- medios
      CREATE TABLE medios (
        id          serial PRIMARY KEY,
        codigo      varchar(20)  NOT NULL,
        nombre      varchar(100) NOT NULL,
        activo      boolean      NOT NULL DEFAULT true,
        created_at  timestamptz  NOT NULL DEFAULT now(),
        updated_at  timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT uq_medios_codigo UNIQUE (codigo),
        -- PostgreSQL regex; see the header for the SQL Server form
        CONSTRAINT ck_medios_codigo CHECK (codigo ~ '^[A-Z0-9_]{1,20}$')
      );

      -- ---------------------------------------------------------------- secciones
      CREATE TABLE secciones (
        id          serial PRIMARY KEY,
        medio_id    int          NOT NULL,
        codigo      varchar(20)  NOT NULL,
        nombre      varchar(100) NOT NULL,
        tipo        varchar(20)  NOT NULL,
        activo      boolean      NOT NULL DEFAULT true,
        created_at  timestamptz  NOT NULL DEFAULT now(),
        updated_at  timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT fk_secciones_medio FOREIGN KEY (medio_id) REFERENCES medios (id),
        CONSTRAINT uq_secciones_medio_codigo UNIQUE (medio_id, codigo),
        -- PostgreSQL regex; see the header for the SQL Server form
        CONSTRAINT ck_secciones_codigo CHECK (codigo ~ '^[A-Z0-9_]{1,20}$'),
        CONSTRAINT ck_secciones_tipo CHECK (tipo IN ('clasificados', 'comercial', 'edictos', 'funebres', 'suplemento', 'digital'))
      );

      -- ---------------------------------------------------------------- puntos de venta
      CREATE TABLE puntos_de_venta (
        id           serial PRIMARY KEY,
        medio_id     int          NOT NULL,
        numero_afip  int          NOT NULL,
        nombre       varchar(100) NOT NULL,
        domicilio    varchar(200) NOT NULL,
        activo       boolean      NOT NULL DEFAULT true,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        updated_at   timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT fk_puntos_de_venta_medio FOREIGN KEY (medio_id) REFERENCES medios (id),
        CONSTRAINT uq_puntos_de_venta_medio_numero UNIQUE (medio_id, numero_afip),
        CONSTRAINT ck_puntos_de_venta_numero_afip CHECK (numero_afip BETWEEN 1 AND 99999)
      );

      -- ---------------------------------------------------------------- tipos de IVA
      CREATE TABLE tipos_iva (
        id           serial PRIMARY KEY,
        codigo       int           NOT NULL,
        descripcion  varchar(200)  NOT NULL,
        porcentaje   numeric(5, 2) NOT NULL,
        activo       boolean       NOT NULL DEFAULT true,
        created_at   timestamptz   NOT NULL DEFAULT now(),
        updated_at   timestamptz   NOT NULL DEFAULT now(),
        CONSTRAINT uq_tipos_iva_codigo UNIQUE (codigo),
        CONSTRAINT ck_tipos_iva_codigo CHECK (codigo > 0),
        CONSTRAINT ck_tipos_iva_porcentaje CHECK (porcentaje BETWEEN 0 AND 100)
      );

      -- ---------------------------------------------------------------- ingresos brutos
      CREATE TABLE ingresos_brutos (
        id           serial PRIMARY KEY,
        provincia    varchar(32)   NOT NULL,
        descripcion  varchar(200)  NOT NULL,
        alicuota     numeric(7, 4) NOT NULL,
        activo       boolean       NOT NULL DEFAULT true,
        created_at   timestamptz   NOT NULL DEFAULT now(),
        updated_at   timestamptz   NOT NULL DEFAULT now(),
        CONSTRAINT ck_ingresos_brutos_alicuota CHECK (alicuota BETWEEN 0 AND 100),
        CONSTRAINT ck_ingresos_brutos_provincia CHECK (provincia IN (
          'BUENOS_AIRES', 'CABA', 'CATAMARCA', 'CHACO', 'CHUBUT', 'CORDOBA', 'CORRIENTES', 'ENTRE_RIOS',
          'FORMOSA', 'JUJUY', 'LA_PAMPA', 'LA_RIOJA', 'MENDOZA', 'MISIONES', 'NEUQUEN', 'RIO_NEGRO',
          'SALTA', 'SAN_JUAN', 'SAN_LUIS', 'SANTA_CRUZ', 'SANTA_FE', 'SANTIAGO_DEL_ESTERO',
          'TIERRA_DEL_FUEGO', 'TUCUMAN'))
      );
      -- One ACTIVE entry per provincia: a partial unique index (PostgreSQL); on SQL Server a
      -- filtered unique index "WHERE activo = 1".
      CREATE UNIQUE INDEX uq_ingresos_brutos_provincia_activa ON ingresos_brutos (provincia) WHERE activo;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS ingresos_brutos, tipos_iva, puntos_de_venta, secciones, medios`);
  }
}
