import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform schema on PostgreSQL: the four system-versioned tables (users, roles, permissions,
 * role_permissions) with history tables, a pure PL/pgSQL versioning trigger and a recorded
 * 10-year retention; the two append-only event stores partitioned monthly by occurred_at (UTC);
 * refresh tokens; the read-only avisos table; the canonical roles and permission catalog.
 */
export class Platform1763712000000 implements MigrationInterface {
  name = 'Platform1763712000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- ---------------------------------------------------------------- system versioning
      CREATE TABLE system_versioning (
        table_name     text PRIMARY KEY,
        history_table  text NOT NULL,
        retention      interval NOT NULL
      );

      -- Copies the old row into the history table with its validity closed at the transaction
      -- time, and opens the new row's validity. Versions that lived only inside one transaction
      -- are not kept (as SQL Server does).
      CREATE FUNCTION versioning() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        ts timestamptz := now();
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          ts := greatest(ts, lower(OLD.sys_period));
          IF lower(OLD.sys_period) < ts THEN
            OLD.sys_period := tstzrange(lower(OLD.sys_period), ts, '[)');
            EXECUTE format('INSERT INTO %I.%I SELECT ($1).*', TG_TABLE_SCHEMA, TG_ARGV[0]) USING OLD;
          END IF;
        END IF;
        IF TG_OP = 'DELETE' THEN
          RETURN OLD;
        END IF;
        NEW.sys_period := tstzrange(ts, NULL, '[)');
        RETURN NEW;
      END
      $fn$;

      -- ---------------------------------------------------------------- roles and permissions
      CREATE TABLE roles (
        id           serial PRIMARY KEY,
        codigo       varchar(50)  NOT NULL,
        nombre       varchar(100) NOT NULL,
        descripcion  varchar(500) NOT NULL DEFAULT '',
        activo       boolean      NOT NULL DEFAULT true,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        updated_at   timestamptz  NOT NULL DEFAULT now(),
        sys_period   tstzrange    NOT NULL DEFAULT tstzrange(now(), NULL),
        CONSTRAINT uq_roles_codigo UNIQUE (codigo),
        CONSTRAINT ck_roles_codigo CHECK (codigo ~ '^[a-z][a-z0-9_]*$')
      );

      CREATE TABLE permissions (
        id           serial PRIMARY KEY,
        codigo       varchar(100) NOT NULL,
        descripcion  varchar(500) NOT NULL DEFAULT '',
        sys_period   tstzrange    NOT NULL DEFAULT tstzrange(now(), NULL),
        CONSTRAINT uq_permissions_codigo UNIQUE (codigo)
      );

      CREATE TABLE role_permissions (
        role_id        int NOT NULL REFERENCES roles (id),
        permission_id  int NOT NULL REFERENCES permissions (id),
        sys_period     tstzrange NOT NULL DEFAULT tstzrange(now(), NULL),
        PRIMARY KEY (role_id, permission_id)
      );
      CREATE INDEX ix_role_permissions_permission ON role_permissions (permission_id);

      -- ---------------------------------------------------------------- users
      CREATE TABLE users (
        id                    serial PRIMARY KEY,
        username              varchar(50)  NOT NULL,
        password_hash         varchar(100) NOT NULL,
        nombre                varchar(100) NOT NULL,
        apellido              varchar(100) NOT NULL,
        email                 varchar(254) NOT NULL,
        role_id               int NOT NULL REFERENCES roles (id),
        activo                boolean NOT NULL DEFAULT true,
        must_change_password  boolean NOT NULL DEFAULT true,
        ultimo_login          timestamptz NULL,
        permission_overrides  text NOT NULL DEFAULT '{"granted":[],"denied":[]}',
        created_at            timestamptz NOT NULL DEFAULT now(),
        updated_at            timestamptz NOT NULL DEFAULT now(),
        sys_period            tstzrange NOT NULL DEFAULT tstzrange(now(), NULL),
        CONSTRAINT uq_users_username UNIQUE (username)
      );
      CREATE INDEX ix_users_role ON users (role_id);

      -- ---------------------------------------------------------------- history tables
      CREATE TABLE roles_history            (LIKE roles);
      CREATE TABLE permissions_history      (LIKE permissions);
      CREATE TABLE role_permissions_history (LIKE role_permissions);
      CREATE TABLE users_history            (LIKE users);
      CREATE INDEX ix_roles_history_id            ON roles_history (id, upper(sys_period));
      CREATE INDEX ix_roles_history_codigo        ON roles_history (codigo, upper(sys_period));
      CREATE INDEX ix_permissions_history_id      ON permissions_history (id, upper(sys_period));
      CREATE INDEX ix_role_permissions_history_id ON role_permissions_history (role_id, upper(sys_period));
      CREATE INDEX ix_users_history_id            ON users_history (id, upper(sys_period));
      CREATE INDEX ix_roles_history_end            ON roles_history (upper(sys_period));
      CREATE INDEX ix_permissions_history_end      ON permissions_history (upper(sys_period));
      CREATE INDEX ix_role_permissions_history_end ON role_permissions_history (upper(sys_period));
      CREATE INDEX ix_users_history_end            ON users_history (upper(sys_period));

      CREATE TRIGGER versioning BEFORE INSERT OR UPDATE OR DELETE ON roles
        FOR EACH ROW EXECUTE FUNCTION versioning('roles_history');
      CREATE TRIGGER versioning BEFORE INSERT OR UPDATE OR DELETE ON permissions
        FOR EACH ROW EXECUTE FUNCTION versioning('permissions_history');
      CREATE TRIGGER versioning BEFORE INSERT OR UPDATE OR DELETE ON role_permissions
        FOR EACH ROW EXECUTE FUNCTION versioning('role_permissions_history');
      CREATE TRIGGER versioning BEFORE INSERT OR UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION versioning('users_history');

      INSERT INTO system_versioning (table_name, history_table, retention) VALUES
        ('users', 'users_history', interval '10 years'),
        ('roles', 'roles_history', interval '10 years'),
        ('permissions', 'permissions_history', interval '10 years'),
        ('role_permissions', 'role_permissions_history', interval '10 years');

      -- ---------------------------------------------------------------- refresh tokens
      CREATE TABLE refresh_tokens (
        id              bigserial PRIMARY KEY,
        token_hash      varchar(64) NOT NULL,
        user_id         int NOT NULL REFERENCES users (id),
        family_id       uuid NOT NULL,
        parent_id       bigint NULL,
        expires_at      timestamptz NOT NULL,
        revoked_at      timestamptz NULL,
        revoked_reason  varchar(32) NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        client_ip       varchar(64) NULL,
        user_agent      varchar(512) NULL,
        CONSTRAINT uq_refresh_tokens_hash UNIQUE (token_hash)
      );
      CREATE INDEX ix_refresh_tokens_user_active ON refresh_tokens (user_id) WHERE revoked_at IS NULL;
      CREATE INDEX ix_refresh_tokens_family ON refresh_tokens (family_id);

      -- ---------------------------------------------------------------- event stores
      CREATE TABLE audit_events (
        id              bigserial,
        occurred_at     timestamptz NOT NULL DEFAULT now(),
        actor_user_id   int NOT NULL,
        actor_role_id   int NULL,
        ip              varchar(64) NULL,
        user_agent      varchar(512) NULL,
        correlation_id  uuid NULL,
        action          varchar(64) NOT NULL,
        target_type     varchar(64) NOT NULL,
        target_id       varchar(128) NOT NULL,
        metadata        jsonb NULL,
        PRIMARY KEY (occurred_at, id)
      ) PARTITION BY RANGE (occurred_at);
      CREATE INDEX ix_audit_events_keyset ON audit_events (occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_actor  ON audit_events (actor_user_id, occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_target ON audit_events (target_type, target_id, occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_target_id ON audit_events (target_id, occurred_at DESC, id DESC);

      CREATE TABLE security_events (
        id                  bigserial,
        occurred_at         timestamptz NOT NULL DEFAULT now(),
        action              varchar(64) NOT NULL,
        result              varchar(16) NOT NULL,
        actor_user_id       int NULL,
        attempted_username  varchar(256) NULL,
        session_id          varchar(128) NULL,
        failure_reason      varchar(64) NULL,
        ip                  varchar(64) NULL,
        user_agent          varchar(512) NULL,
        metadata            jsonb NULL,
        PRIMARY KEY (occurred_at, id),
        CONSTRAINT ck_security_events_result CHECK (result IN ('success', 'failure'))
      ) PARTITION BY RANGE (occurred_at);
      CREATE INDEX ix_security_events_keyset ON security_events (occurred_at DESC, id DESC);
      CREATE INDEX ix_security_events_action ON security_events (action, occurred_at DESC);

      -- Creates the missing monthly partitions [first month .. last month] of a store; idempotent.
      CREATE FUNCTION ensure_monthly_partitions(parent text, first_month date, last_month date)
      RETURNS int LANGUAGE plpgsql AS $fn$
      DECLARE
        m date := date_trunc('month', first_month)::date;
        created int := 0;
        part text;
      BEGIN
        WHILE m <= last_month LOOP
          part := format('%s_p%s', parent, to_char(m, 'YYYY_MM'));
          IF to_regclass(quote_ident(part)) IS NULL THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
              part, parent, m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
            created := created + 1;
          END IF;
          m := (m + interval '1 month')::date;
        END LOOP;
        RETURN created;
      END
      $fn$;

      SELECT ensure_monthly_partitions('audit_events',
        ((now() AT TIME ZONE 'UTC') - interval '1 month')::date, ((now() AT TIME ZONE 'UTC') + interval '3 months')::date);
      SELECT ensure_monthly_partitions('security_events',
        ((now() AT TIME ZONE 'UTC') - interval '1 month')::date, ((now() AT TIME ZONE 'UTC') + interval '3 months')::date);

      -- ---------------------------------------------------------------- avisos (sales side, read-only here)
      CREATE TABLE avisos (
        id        serial PRIMARY KEY,
        rubro_id  int NOT NULL
      );
      CREATE INDEX ix_avisos_rubro ON avisos (rubro_id);
    `);
    await seedCatalog(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS avisos, security_events, audit_events, refresh_tokens,
        users_history, role_permissions_history, permissions_history, roles_history,
        users, role_permissions, permissions, roles, system_versioning CASCADE;
      DROP FUNCTION IF EXISTS ensure_monthly_partitions(text, date, date);
      DROP FUNCTION IF EXISTS versioning();
    `);
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
    await q.query(`INSERT INTO roles (codigo, nombre, descripcion) VALUES ($1, $2, $3)`, [r.codigo, r.nombre, r.descripcion]);
  }
  for (const p of PERMISSION_CATALOG) {
    await q.query(`INSERT INTO permissions (codigo, descripcion) VALUES ($1, $2)`, [p.codigo, p.descripcion]);
    await q.query(
      `INSERT INTO role_permissions (role_id, permission_id)
       SELECT r.id, p.id FROM roles r, permissions p WHERE p.codigo = $1 AND r.codigo = ANY($2::text[])`,
      [p.codigo, p.roles],
    );
  }
}
