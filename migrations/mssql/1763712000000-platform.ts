import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform schema on SQL Server 2019+: the counterpart of migrations/postgres/1763712000000-platform.ts
 * with the same table and column names.
 *
 * - users, roles, permissions, role_permissions are native temporal tables (history in
 *   dbo.<t>_history, HISTORY_RETENTION_PERIOD = 10 YEARS). Their period columns valid_from /
 *   valid_to are HIDDEN (SELECT * does not return them); PostgreSQL has a sys_period column
 *   instead, and a system_versioning table that SQL Server does not need (sys.tables reports
 *   temporal_type and history_retention_period).
 * - audit_events and security_events share one partition function pf_events_monthly
 *   (datetime2(7), RANGE RIGHT, one boundary per month start, UTC) through the scheme
 *   ps_events_monthly: a boundary created for one store covers the other too.
 *   Month M is "covered" when the boundaries M and M+1 both exist (its own partition);
 *   this migration creates the boundaries of the previous month through the month after
 *   the third month ahead, so the previous month through the third month ahead are covered.
 * - Every timestamp is datetime2(7) in UTC (default SYSUTCDATETIME()), never datetime.
 * - Every text column is nvarchar: the mssql driver sends JavaScript strings as nvarchar, and an
 *   nvarchar parameter compared with a varchar column would convert the column (no index seek).
 * - JSON documents are nvarchar(max) with an ISJSON check.
 * - Case: the database's collation is usually case-insensitive; the columns whose PostgreSQL
 *   uniqueness and equality are case-sensitive and matter to the service get an explicit
 *   case-sensitive collation (username) or a binary one (token_hash, base64url).
 *
 * Each q.query() is one batch; CREATE PROCEDURE must start its own batch.
 */
export class Platform1763712000000 implements MigrationInterface {
  name = 'Platform1763712000000';

  async up(q: QueryRunner): Promise<void> {
    // ---------------------------------------------------------------- roles and permissions (temporal)
    await q.query(`
      CREATE TABLE dbo.roles (
        id           int IDENTITY(1, 1) NOT NULL,
        codigo       nvarchar(50)  NOT NULL,
        nombre       nvarchar(100) NOT NULL,
        descripcion  nvarchar(500) NOT NULL CONSTRAINT df_roles_descripcion DEFAULT N'',
        activo       bit           NOT NULL CONSTRAINT df_roles_activo DEFAULT 1,
        created_at   datetime2(7)  NOT NULL CONSTRAINT df_roles_created_at DEFAULT SYSUTCDATETIME(),
        updated_at   datetime2(7)  NOT NULL CONSTRAINT df_roles_updated_at DEFAULT SYSUTCDATETIME(),
        valid_from   datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
        valid_to     datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
        PERIOD FOR SYSTEM_TIME (valid_from, valid_to),
        CONSTRAINT pk_roles PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_roles_codigo UNIQUE (codigo),
        -- PostgreSQL: codigo ~ '^[a-z][a-z0-9_]*$' (no regex in SQL Server 2019; a binary
        -- collation makes [a-z] mean the 26 lowercase ASCII letters only)
        CONSTRAINT ck_roles_codigo CHECK (
          codigo COLLATE Latin1_General_100_BIN2 LIKE N'[a-z]%'
          AND codigo COLLATE Latin1_General_100_BIN2 NOT LIKE N'%[^a-z0-9_]%')
      )
      WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.roles_history, HISTORY_RETENTION_PERIOD = 10 YEARS));

      CREATE TABLE dbo.permissions (
        id           int IDENTITY(1, 1) NOT NULL,
        codigo       nvarchar(100) NOT NULL,
        descripcion  nvarchar(500) NOT NULL CONSTRAINT df_permissions_descripcion DEFAULT N'',
        valid_from   datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
        valid_to     datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
        PERIOD FOR SYSTEM_TIME (valid_from, valid_to),
        CONSTRAINT pk_permissions PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_permissions_codigo UNIQUE (codigo)
      )
      WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.permissions_history, HISTORY_RETENTION_PERIOD = 10 YEARS));

      CREATE TABLE dbo.role_permissions (
        role_id        int NOT NULL CONSTRAINT fk_role_permissions_role REFERENCES dbo.roles (id),
        permission_id  int NOT NULL CONSTRAINT fk_role_permissions_permission REFERENCES dbo.permissions (id),
        valid_from     datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
        valid_to       datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
        PERIOD FOR SYSTEM_TIME (valid_from, valid_to),
        CONSTRAINT pk_role_permissions PRIMARY KEY CLUSTERED (role_id, permission_id)
      )
      WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.role_permissions_history, HISTORY_RETENTION_PERIOD = 10 YEARS));
      CREATE INDEX ix_role_permissions_permission ON dbo.role_permissions (permission_id);
    `);

    // ---------------------------------------------------------------- users (temporal)
    await q.query(`
      CREATE TABLE dbo.users (
        id                    int IDENTITY(1, 1) NOT NULL,
        -- case-sensitive like PostgreSQL's varchar: 'Admin' and 'admin' are two usernames
        username              nvarchar(50)  COLLATE Latin1_General_100_CS_AS NOT NULL,
        password_hash         nvarchar(100) NOT NULL,
        nombre                nvarchar(100) NOT NULL,
        apellido              nvarchar(100) NOT NULL,
        email                 nvarchar(254) NOT NULL,
        role_id               int NOT NULL CONSTRAINT fk_users_role REFERENCES dbo.roles (id),
        activo                bit NOT NULL CONSTRAINT df_users_activo DEFAULT 1,
        must_change_password  bit NOT NULL CONSTRAINT df_users_must_change_password DEFAULT 1,
        ultimo_login          datetime2(7) NULL,
        permission_overrides  nvarchar(max) NOT NULL
          CONSTRAINT df_users_permission_overrides DEFAULT N'{"granted":[],"denied":[]}'
          CONSTRAINT ck_users_permission_overrides_json CHECK (ISJSON(permission_overrides) = 1),
        created_at            datetime2(7) NOT NULL CONSTRAINT df_users_created_at DEFAULT SYSUTCDATETIME(),
        updated_at            datetime2(7) NOT NULL CONSTRAINT df_users_updated_at DEFAULT SYSUTCDATETIME(),
        valid_from            datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
        valid_to              datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
        PERIOD FOR SYSTEM_TIME (valid_from, valid_to),
        CONSTRAINT pk_users PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_users_username UNIQUE (username)
      )
      WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.users_history, HISTORY_RETENTION_PERIOD = 10 YEARS));
      CREATE INDEX ix_users_role ON dbo.users (role_id);
    `);

    // ---------------------------------------------------------------- history indexes
    // SQL Server creates each history table with a clustered index on (valid_to, valid_from),
    // which serves retention (PostgreSQL's ix_<t>_history_end); these serve "as of" reads of one row.
    await q.query(`
      CREATE INDEX ix_roles_history_id            ON dbo.roles_history (id, valid_to);
      CREATE INDEX ix_roles_history_codigo        ON dbo.roles_history (codigo, valid_to);
      CREATE INDEX ix_permissions_history_id      ON dbo.permissions_history (id, valid_to);
      CREATE INDEX ix_role_permissions_history_id ON dbo.role_permissions_history (role_id, valid_to);
      CREATE INDEX ix_users_history_id            ON dbo.users_history (id, valid_to);
    `);

    // ---------------------------------------------------------------- refresh tokens
    await q.query(`
      CREATE TABLE dbo.refresh_tokens (
        id              bigint IDENTITY(1, 1) NOT NULL,
        -- base64url(SHA-256): case matters, so a binary collation
        token_hash      nvarchar(64) COLLATE Latin1_General_100_BIN2 NOT NULL,
        user_id         int NOT NULL CONSTRAINT fk_refresh_tokens_user REFERENCES dbo.users (id),
        family_id       uniqueidentifier NOT NULL,
        parent_id       bigint NULL,
        expires_at      datetime2(7) NOT NULL,
        revoked_at      datetime2(7) NULL,
        revoked_reason  nvarchar(32) NULL,
        created_at      datetime2(7) NOT NULL CONSTRAINT df_refresh_tokens_created_at DEFAULT SYSUTCDATETIME(),
        client_ip       nvarchar(64) NULL,
        user_agent      nvarchar(512) NULL,
        CONSTRAINT pk_refresh_tokens PRIMARY KEY CLUSTERED (id),
        CONSTRAINT uq_refresh_tokens_hash UNIQUE (token_hash)
      );
      -- PostgreSQL partial index -> filtered index
      CREATE INDEX ix_refresh_tokens_user_active ON dbo.refresh_tokens (user_id) WHERE revoked_at IS NULL;
      CREATE INDEX ix_refresh_tokens_family ON dbo.refresh_tokens (family_id);
    `);

    // ---------------------------------------------------------------- monthly partitioning of the event stores
    // Boundaries: the first day (00:00 UTC) of the previous month through the month after the
    // third month ahead, computed now; RANGE RIGHT puts each boundary in the partition to its
    // right, so partition [M, M+1) holds month M.
    await q.query(`
      DECLARE @now datetime2(7) = SYSUTCDATETIME();
      DECLARE @start date = DATEADD(month, -1, DATEFROMPARTS(YEAR(@now), MONTH(@now), 1));
      DECLARE @values nvarchar(max) = N'';
      DECLARE @i int = 0;
      WHILE @i <= 5
      BEGIN
        SET @values = @values + CASE WHEN @i > 0 THEN N', ' ELSE N'' END
          + N'''' + CONVERT(nvarchar(10), DATEADD(month, @i, @start), 23) + N'T00:00:00''';
        SET @i = @i + 1;
      END;
      DECLARE @sql nvarchar(max) =
        N'CREATE PARTITION FUNCTION pf_events_monthly (datetime2(7)) AS RANGE RIGHT FOR VALUES (' + @values + N')';
      EXEC sys.sp_executesql @sql;
    `);
    await q.query(`CREATE PARTITION SCHEME ps_events_monthly AS PARTITION pf_events_monthly ALL TO ([PRIMARY])`);

    // ---------------------------------------------------------------- event stores
    await q.query(`
      CREATE TABLE dbo.audit_events (
        id              bigint IDENTITY(1, 1) NOT NULL,
        occurred_at     datetime2(7) NOT NULL CONSTRAINT df_audit_events_occurred_at DEFAULT SYSUTCDATETIME(),
        actor_user_id   int NOT NULL,
        actor_role_id   int NULL,
        ip              nvarchar(64) NULL,
        user_agent      nvarchar(512) NULL,
        correlation_id  uniqueidentifier NULL,
        action          nvarchar(64) NOT NULL,
        target_type     nvarchar(64) NOT NULL,
        target_id       nvarchar(128) NOT NULL,
        metadata        nvarchar(max) NULL CONSTRAINT ck_audit_events_metadata_json CHECK (ISJSON(metadata) = 1),
        CONSTRAINT pk_audit_events PRIMARY KEY CLUSTERED (occurred_at, id) ON ps_events_monthly (occurred_at)
      ) ON ps_events_monthly (occurred_at);
      -- aligned (partitioned) nonclustered indexes, as in PostgreSQL
      CREATE INDEX ix_audit_events_keyset    ON dbo.audit_events (occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_actor     ON dbo.audit_events (actor_user_id, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_target    ON dbo.audit_events (target_type, target_id, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_target_id ON dbo.audit_events (target_id, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);

      CREATE TABLE dbo.security_events (
        id                  bigint IDENTITY(1, 1) NOT NULL,
        occurred_at         datetime2(7) NOT NULL CONSTRAINT df_security_events_occurred_at DEFAULT SYSUTCDATETIME(),
        action              nvarchar(64) NOT NULL,
        result              nvarchar(16) NOT NULL,
        actor_user_id       int NULL,
        attempted_username  nvarchar(256) NULL,
        session_id          nvarchar(128) NULL,
        failure_reason      nvarchar(64) NULL,
        ip                  nvarchar(64) NULL,
        user_agent          nvarchar(512) NULL,
        metadata            nvarchar(max) NULL CONSTRAINT ck_security_events_metadata_json CHECK (ISJSON(metadata) = 1),
        CONSTRAINT pk_security_events PRIMARY KEY CLUSTERED (occurred_at, id) ON ps_events_monthly (occurred_at),
        CONSTRAINT ck_security_events_result CHECK (result IN (N'success', N'failure'))
      ) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_security_events_keyset ON dbo.security_events (occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_security_events_action ON dbo.security_events (action, occurred_at DESC) ON ps_events_monthly (occurred_at);
    `);

    // ---------------------------------------------------------------- partition maintenance
    // What MssqlDialect.ensureMonthlyPartitions calls (EXEC dbo.ensure_monthly_partitions @0, @1, @2).
    await q.query(`
      CREATE PROCEDURE dbo.ensure_monthly_partitions
        @table sysname,
        @first date,
        @last  date
      AS
      BEGIN
        -- Makes every month of [@first .. @last] its own partition by SPLITting the missing
        -- boundaries (month starts, 00:00 UTC) of pf_events_monthly, and returns how many it
        -- created. audit_events and security_events share pf_events_monthly (through
        -- ps_events_monthly): a boundary created for one store covers the other as well, so a
        -- second call for the other store over the same months returns 0. Idempotent.
        SET NOCOUNT ON;
        SET XACT_ABORT ON;
        IF @table NOT IN (N'audit_events', N'security_events')
          THROW 50001, N'ensure_monthly_partitions: @table must be audit_events or security_events', 1;

        DECLARE @created int = 0;
        DECLARE @m date = DATEFROMPARTS(YEAR(@first), MONTH(@first), 1);
        DECLARE @stop date = DATEADD(month, 1, DATEFROMPARTS(YEAR(@last), MONTH(@last), 1));
        DECLARE @boundary datetime2(7);
        DECLARE @lock int;

        BEGIN TRANSACTION;
        -- one maintainer at a time (several instances, or the job and an operator)
        EXEC @lock = sys.sp_getapplock @Resource = N'ensure_monthly_partitions', @LockMode = N'Exclusive',
          @LockOwner = N'Transaction', @LockTimeout = 60000;
        IF @lock < 0
          THROW 50002, N'ensure_monthly_partitions: another session holds the partition maintenance lock', 1;
        WHILE @m <= @stop
        BEGIN
          SET @boundary = CAST(@m AS datetime2(7));
          IF NOT EXISTS (
            SELECT 1
            FROM sys.partition_range_values AS rv
            JOIN sys.partition_functions AS pf ON pf.function_id = rv.function_id
            WHERE pf.name = N'pf_events_monthly' AND CAST(rv.value AS datetime2(7)) = @boundary)
          BEGIN
            -- the new partition goes to PRIMARY; a SPLIT without NEXT USED fails
            ALTER PARTITION SCHEME ps_events_monthly NEXT USED [PRIMARY];
            ALTER PARTITION FUNCTION pf_events_monthly() SPLIT RANGE (@boundary);
            SET @created = @created + 1;
          END;
          SET @m = DATEADD(month, 1, @m);
        END;
        COMMIT TRANSACTION;

        SELECT @created AS created;
      END
    `);

    // ---------------------------------------------------------------- avisos (sales side, read-only here)
    await q.query(`
      CREATE TABLE dbo.avisos (
        id        int IDENTITY(1, 1) NOT NULL,
        rubro_id  int NOT NULL,
        CONSTRAINT pk_avisos PRIMARY KEY CLUSTERED (id)
      );
      CREATE INDEX ix_avisos_rubro ON dbo.avisos (rubro_id);
    `);

    await seedCatalog(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS dbo.avisos, dbo.security_events, dbo.audit_events, dbo.refresh_tokens;
      DROP PROCEDURE IF EXISTS dbo.ensure_monthly_partitions;
      IF EXISTS (SELECT 1 FROM sys.partition_schemes WHERE name = N'ps_events_monthly') DROP PARTITION SCHEME ps_events_monthly;
      IF EXISTS (SELECT 1 FROM sys.partition_functions WHERE name = N'pf_events_monthly') DROP PARTITION FUNCTION pf_events_monthly;
    `);
    for (const t of ['users', 'role_permissions', 'permissions', 'roles']) {
      await q.query(`
        IF OBJECT_ID(N'dbo.${t}', N'U') IS NOT NULL ALTER TABLE dbo.${t} SET (SYSTEM_VERSIONING = OFF);
        DROP TABLE IF EXISTS dbo.${t}, dbo.${t}_history;
      `);
    }
  }
}

/** The canonical roles this migration installed (docs/permissions.md), frozen as it inserted them. */
const CANONICAL_ROLES: ReadonlyArray<{ codigo: string; nombre: string; descripcion: string }> = [
  { codigo: 'admin', nombre: 'Administrador', descripcion: 'Administración completa del sistema' },
  { codigo: 'supervisor', nombre: 'Supervisor', descripcion: 'Supervisión de medios, puntos de venta y catálogo' },
  { codigo: 'cajero', nombre: 'Cajero', descripcion: 'Operación de caja' },
  { codigo: 'vendedor', nombre: 'Vendedor', descripcion: 'Venta de avisos' },
  { codigo: 'contable', nombre: 'Contable', descripcion: 'Tablas fiscales y puntos de venta' },
  { codigo: 'auditor', nombre: 'Auditor', descripcion: 'Lectura de usuarios y de la auditoría' },
  { codigo: 'diagramador', nombre: 'Diagramador', descripcion: 'Mantenimiento del árbol de rubros' },
  { codigo: 'consulta', nombre: 'Consulta', descripcion: 'Solo consulta' },
];

/** The permission catalog this migration installed, with the roles that hold each code, frozen as it inserted them. */
const PERMISSION_CATALOG: ReadonlyArray<{ codigo: string; descripcion: string; roles: string[] }> = [
  { codigo: 'administracion:usuarios:ver', descripcion: 'Ver usuarios y sus permisos', roles: ['admin', 'supervisor', 'auditor'] },
  {
    codigo: 'administracion:usuarios:gestionar',
    descripcion: 'Crear, modificar y desactivar usuarios; overrides y blanqueo de contraseñas',
    roles: ['admin'],
  },
  { codigo: 'administracion:roles:gestionar', descripcion: 'Gestionar roles y el catálogo de permisos', roles: ['admin'] },
  { codigo: 'administracion:auditoria:ver', descripcion: 'Consultar eventos de auditoría', roles: ['admin', 'auditor'] },
  { codigo: 'administracion:medios:gestionar', descripcion: 'Gestionar medios y secciones', roles: ['admin', 'supervisor'] },
  { codigo: 'administracion:puntos_de_venta:gestionar', descripcion: 'Gestionar puntos de venta', roles: ['admin', 'supervisor', 'contable'] },
  { codigo: 'administracion:fiscal:gestionar', descripcion: 'Gestionar tipos de IVA e ingresos brutos', roles: ['admin', 'contable'] },
  { codigo: 'catalogo:rubros:gestionar', descripcion: 'Gestionar el árbol de rubros', roles: ['admin', 'supervisor', 'diagramador'] },
  { codigo: 'catalogo:tipos_producto:gestionar', descripcion: 'Gestionar tipos de producto', roles: ['admin', 'supervisor'] },
  { codigo: 'catalogo:productos:gestionar', descripcion: 'Gestionar productos y sus precios', roles: ['admin', 'supervisor'] },
];

async function seedCatalog(q: QueryRunner): Promise<void> {
  for (const r of CANONICAL_ROLES) {
    await q.query(`INSERT INTO dbo.roles (codigo, nombre, descripcion) VALUES (@0, @1, @2)`, [r.codigo, r.nombre, r.descripcion]);
  }
  for (const p of PERMISSION_CATALOG) {
    await q.query(`INSERT INTO dbo.permissions (codigo, descripcion) VALUES (@0, @1)`, [p.codigo, p.descripcion]);
    for (const rol of p.roles) {
      await q.query(
        `INSERT INTO dbo.role_permissions (role_id, permission_id)
         SELECT r.id, p.id FROM dbo.roles r CROSS JOIN dbo.permissions p WHERE p.codigo = @0 AND r.codigo = @1`,
        [p.codigo, rol],
      );
    }
  }
}
