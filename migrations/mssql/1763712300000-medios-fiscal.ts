import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Medios, secciones, puntos de venta and the fiscal reference tables on SQL Server: the
 * counterpart of migrations/postgres/1763712300000-medios-fiscal.ts (same names).
 *
 * - PostgreSQL's `codigo ~ '^[A-Z0-9_]{1,20}$'` becomes LEN(codigo) BETWEEN 1 AND 20 plus
 *   NOT LIKE '%[^A-Z0-9_]%' under a binary collation (so [A-Z] is the 26 uppercase ASCII
 *   letters; a trailing space, which LEN ignores, is caught by the NOT LIKE).
 * - numeric(p, s) → decimal(p, s).
 * - The partial unique index "WHERE activo" becomes a filtered unique index "WHERE activo = 1".
 */
export class MediosFiscal1763712300000 implements MigrationInterface {
  name = 'MediosFiscal1763712300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- ---------------------------------------------------------------- medios
      CREATE TABLE dbo.medios (
        id          int IDENTITY(1, 1) NOT NULL,
        codigo      nvarchar(20)  NOT NULL,
        nombre      nvarchar(100) NOT NULL,
        activo      bit           NOT NULL CONSTRAINT df_medios_activo DEFAULT 1,
        created_at  datetime2(7)  NOT NULL CONSTRAINT df_medios_created_at DEFAULT SYSUTCDATETIME(),
        updated_at  datetime2(7)  NOT NULL CONSTRAINT df_medios_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_medios PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_medios_codigo UNIQUE (codigo),
        CONSTRAINT ck_medios_codigo CHECK (
          LEN(codigo) BETWEEN 1 AND 20
          AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%')
      );

      -- ---------------------------------------------------------------- secciones
      CREATE TABLE dbo.secciones (
        id          int IDENTITY(1, 1) NOT NULL,
        medio_id    int           NOT NULL,
        codigo      nvarchar(20)  NOT NULL,
        nombre      nvarchar(100) NOT NULL,
        tipo        nvarchar(20)  NOT NULL,
        activo      bit           NOT NULL CONSTRAINT df_secciones_activo DEFAULT 1,
        created_at  datetime2(7)  NOT NULL CONSTRAINT df_secciones_created_at DEFAULT SYSUTCDATETIME(),
        updated_at  datetime2(7)  NOT NULL CONSTRAINT df_secciones_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_secciones PRIMARY KEY CLUSTERED (id),
        CONSTRAINT fk_secciones_medio FOREIGN KEY (medio_id) REFERENCES dbo.medios (id),
        CONSTRAINT uq_secciones_medio_codigo UNIQUE (medio_id, codigo),
        CONSTRAINT ck_secciones_codigo CHECK (
          LEN(codigo) BETWEEN 1 AND 20
          AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^A-Z0-9_]%'),
        CONSTRAINT ck_secciones_tipo CHECK (tipo IN (N'clasificados', N'comercial', N'edictos', N'funebres', N'suplemento', N'digital'))
      );

      -- ---------------------------------------------------------------- puntos de venta
      CREATE TABLE dbo.puntos_de_venta (
        id           int IDENTITY(1, 1) NOT NULL,
        medio_id     int           NOT NULL,
        numero_afip  int           NOT NULL,
        nombre       nvarchar(100) NOT NULL,
        domicilio    nvarchar(200) NOT NULL,
        activo       bit           NOT NULL CONSTRAINT df_puntos_de_venta_activo DEFAULT 1,
        created_at   datetime2(7)  NOT NULL CONSTRAINT df_puntos_de_venta_created_at DEFAULT SYSUTCDATETIME(),
        updated_at   datetime2(7)  NOT NULL CONSTRAINT df_puntos_de_venta_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_puntos_de_venta PRIMARY KEY CLUSTERED (id),
        CONSTRAINT fk_puntos_de_venta_medio FOREIGN KEY (medio_id) REFERENCES dbo.medios (id),
        CONSTRAINT uq_puntos_de_venta_medio_numero UNIQUE (medio_id, numero_afip),
        CONSTRAINT ck_puntos_de_venta_numero_afip CHECK (numero_afip BETWEEN 1 AND 99999)
      );

      -- ---------------------------------------------------------------- tipos de IVA
      CREATE TABLE dbo.tipos_iva (
        id           int IDENTITY(1, 1) NOT NULL,
        codigo       int           NOT NULL,
        descripcion  nvarchar(200) NOT NULL,
        porcentaje   decimal(5, 2) NOT NULL,
        activo       bit           NOT NULL CONSTRAINT df_tipos_iva_activo DEFAULT 1,
        created_at   datetime2(7)  NOT NULL CONSTRAINT df_tipos_iva_created_at DEFAULT SYSUTCDATETIME(),
        updated_at   datetime2(7)  NOT NULL CONSTRAINT df_tipos_iva_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_tipos_iva PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_tipos_iva_codigo UNIQUE (codigo),
        CONSTRAINT ck_tipos_iva_codigo CHECK (codigo > 0),
        CONSTRAINT ck_tipos_iva_porcentaje CHECK (porcentaje BETWEEN 0 AND 100)
      );

      -- ---------------------------------------------------------------- ingresos brutos
      CREATE TABLE dbo.ingresos_brutos (
        id           int IDENTITY(1, 1) NOT NULL,
        provincia    nvarchar(32)  NOT NULL,
        descripcion  nvarchar(200) NOT NULL,
        alicuota     decimal(7, 4) NOT NULL,
        activo       bit           NOT NULL CONSTRAINT df_ingresos_brutos_activo DEFAULT 1,
        created_at   datetime2(7)  NOT NULL CONSTRAINT df_ingresos_brutos_created_at DEFAULT SYSUTCDATETIME(),
        updated_at   datetime2(7)  NOT NULL CONSTRAINT df_ingresos_brutos_updated_at DEFAULT SYSUTCDATETIME(),
        CONSTRAINT pk_ingresos_brutos PRIMARY KEY CLUSTERED (id),
        CONSTRAINT ck_ingresos_brutos_alicuota CHECK (alicuota BETWEEN 0 AND 100),
        CONSTRAINT ck_ingresos_brutos_provincia CHECK (provincia IN (
          N'BUENOS_AIRES', N'CABA', N'CATAMARCA', N'CHACO', N'CHUBUT', N'CORDOBA', N'CORRIENTES', N'ENTRE_RIOS',
          N'FORMOSA', N'JUJUY', N'LA_PAMPA', N'LA_RIOJA', N'MENDOZA', N'MISIONES', N'NEUQUEN', N'RIO_NEGRO',
          N'SALTA', N'SAN_JUAN', N'SAN_LUIS', N'SANTA_CRUZ', N'SANTA_FE', N'SANTIAGO_DEL_ESTERO',
          N'TIERRA_DEL_FUEGO', N'TUCUMAN'))
      );
      -- One ACTIVE entry per provincia: PostgreSQL's partial unique index as a filtered unique index.
      CREATE UNIQUE INDEX uq_ingresos_brutos_provincia_activa ON dbo.ingresos_brutos (provincia) WHERE activo = 1;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS dbo.ingresos_brutos, dbo.tipos_iva, dbo.puntos_de_venta, dbo.secciones, dbo.medios`);
  }
}
