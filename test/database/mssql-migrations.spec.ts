import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { MSSQL_MIGRATIONS } from '../../migrations/mssql/index.js';
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js';
import { type CapturedStatement, captureMigrations, type DeclaredSchema, parseMssqlDdl, stripComments } from '../support/mssql-ddl.js';
import { captureMssqlStatements } from '../support/mssql-statements.js';
import { catalogInserted, installedCatalog, REGISTERED_PERMISSION_CODES } from '../support/installed-catalog.js';

/**
 * The T-SQL of the SQL Server migrations, checked without a server (SQL Server cannot run on the
 * development machine): each migration's up() runs against a recording QueryRunner, and the
 * statements are checked for the pieces a later edit must not silently drop.
 */
describe('SQL Server migrations (T-SQL snapshot)', () => {
  let statements: CapturedStatement[];
  let ddl: string;
  let schema: DeclaredSchema;
  let pgDdl: string;

  beforeAll(async () => {
    statements = await captureMigrations(MSSQL_MIGRATIONS);
    ddl = statements.map((s) => stripComments(s.sql)).join('\n;\n');
    schema = parseMssqlDdl(statements.map((s) => s.sql));
    pgDdl = (await captureMigrations(POSTGRES_MIGRATIONS)).map((s) => stripComments(s.sql)).join('\n;\n');
  });

  const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

  it('mirrors every PostgreSQL migration with the same class name, in the same order', () => {
    expect(MSSQL_MIGRATIONS.map((M) => new M().name)).toEqual(POSTGRES_MIGRATIONS.map((M) => new M().name));
    expect(MSSQL_MIGRATIONS.map((M) => M.name)).toEqual(POSTGRES_MIGRATIONS.map((M) => M.name));
  });

  describe('system versioning', () => {
    it.each(['users', 'roles', 'permissions', 'role_permissions'])('makes %s a temporal table with a 10-year history retention', (table) => {
      const t = schema.tables.get(table);
      expect(t?.historyTable).toBe(`${table}_history`);
      expect(t?.historyRetention).toBe('10 YEARS');
      expect(flat(ddl)).toContain(`WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.${table}_history, HISTORY_RETENTION_PERIOD = 10 YEARS))`);
    });

    it.each(['users', 'roles', 'permissions', 'role_permissions'])('gives %s hidden datetime2 period columns valid_from / valid_to', (table) => {
      const columns = schema.tables.get(table)!.columns;
      expect(flat(columns.get('valid_from')!.definition)).toBe('datetime2(7) GENERATED ALWAYS AS ROW START HIDDEN NOT NULL');
      expect(flat(columns.get('valid_to')!.definition)).toBe('datetime2(7) GENERATED ALWAYS AS ROW END HIDDEN NOT NULL');
      const create = new RegExp(String.raw`CREATE TABLE dbo\.${table} \((?:(?!CREATE TABLE).)*PERIOD FOR SYSTEM_TIME \(valid_from, valid_to\)`);
      expect(flat(ddl)).toMatch(create);
    });

    it('versions no other table', () => {
      const versioned = [...schema.tables.values()]
        .filter((t) => t.historyTable)
        .map((t) => t.name)
        .sort();
      expect(versioned).toEqual(['permissions', 'role_permissions', 'roles', 'users']);
    });
  });

  describe('monthly partitions of the event stores', () => {
    it('declares one RANGE RIGHT datetime2(7) partition function, built from SYSUTCDATETIME at migration time', () => {
      const fn = statements.find((s) => s.sql.includes('pf_events_monthly (datetime2(7)) AS RANGE RIGHT'));
      expect(fn).toBeDefined();
      expect(fn!.sql).toContain('SYSUTCDATETIME()');
      expect(fn!.sql).toContain('sp_executesql');
      // previous month (@start) through the month after the third month ahead: 6 boundaries
      expect(flat(fn!.sql)).toContain(
        'DECLARE @now datetime2(7) = SYSUTCDATETIME(); DECLARE @start date = DATEADD(month, -1, DATEFROMPARTS(YEAR(@now), MONTH(@now), 1));',
      );
      expect(flat(fn!.sql)).toContain('WHILE @i <= 5');
    });

    it('maps every partition of the scheme to PRIMARY', () => {
      expect(flat(ddl)).toContain('CREATE PARTITION SCHEME ps_events_monthly AS PARTITION pf_events_monthly ALL TO ([PRIMARY])');
    });

    it.each(['audit_events', 'security_events'])('stores %s on the scheme with the clustered key (occurred_at, id)', (table) => {
      expect(schema.tables.get(table)?.storage).toBe('ps_events_monthly (occurred_at)');
      const pk = schema.indexes.get(`pk_${table}`);
      expect(pk).toMatchObject({ keys: 'occurred_at, id', storage: 'ps_events_monthly (occurred_at)' });
      expect(flat(ddl)).toContain(`CONSTRAINT pk_${table} PRIMARY KEY CLUSTERED (occurred_at, id) ON ps_events_monthly (occurred_at)`);
      expect(schema.tables.get(table)!.columns.get('occurred_at')!.definition).toMatch(/^datetime2\(7\) NOT NULL .*DEFAULT SYSUTCDATETIME\(\)$/);
    });

    it('aligns the keyset, actor and target indexes with the partition scheme', () => {
      const expected: Record<string, string> = {
        ix_audit_events_keyset: 'occurred_at DESC, id DESC',
        ix_audit_events_actor: 'actor_user_id, occurred_at DESC, id DESC',
        ix_audit_events_target: 'target_type, target_id, occurred_at DESC, id DESC',
        ix_audit_events_target_id: 'target_id, occurred_at DESC, id DESC',
        ix_security_events_keyset: 'occurred_at DESC, id DESC',
        ix_security_events_action: 'action, occurred_at DESC',
      };
      for (const [name, keys] of Object.entries(expected)) {
        expect(schema.indexes.get(name)).toMatchObject({ keys, storage: 'ps_events_monthly (occurred_at)' });
      }
    });

    it('aligns every index of both event stores with the partition scheme (TRUNCATE … WITH (PARTITIONS) needs it)', () => {
      const indexes = [...schema.indexes.values()].filter((ix) => ix.table === 'audit_events' || ix.table === 'security_events');
      expect(indexes.length).toBeGreaterThanOrEqual(8);
      for (const ix of indexes) expect({ name: ix.name, storage: ix.storage }).toEqual({ name: ix.name, storage: 'ps_events_monthly (occurred_at)' });
    });

    it('checks that a security event result is success or failure', () => {
      expect(flat(ddl)).toContain("CONSTRAINT ck_security_events_result CHECK (result IN (N'success', N'failure'))");
    });
  });

  describe('dbo.ensure_monthly_partitions', () => {
    let procedure: string;
    beforeAll(() => {
      procedure = flat(stripComments(statements.find((s) => /CREATE PROCEDURE dbo\.ensure_monthly_partitions/.test(s.sql))!.sql));
    });

    it('takes @table sysname, @first date, @last date and answers SELECT @created AS created', () => {
      expect(procedure).toMatch(/^CREATE PROCEDURE dbo\.ensure_monthly_partitions @table sysname, @first date, @last date AS BEGIN/);
      expect(procedure).toMatch(/SELECT @created AS created; END$/);
    });

    it('marks PRIMARY as NEXT USED right before each SPLIT RANGE of the shared function', () => {
      expect(procedure).toContain(
        'ALTER PARTITION SCHEME ps_events_monthly NEXT USED [PRIMARY]; ALTER PARTITION FUNCTION pf_events_monthly() SPLIT RANGE (@boundary);',
      );
      expect(procedure.match(/SPLIT RANGE/g)).toHaveLength(1);
    });

    it('splits only missing month-start boundaries, from @first through the month after @last', () => {
      expect(procedure).toContain('DECLARE @m date = DATEFROMPARTS(YEAR(@first), MONTH(@first), 1)');
      expect(procedure).toContain('DECLARE @stop date = DATEADD(month, 1, DATEFROMPARTS(YEAR(@last), MONTH(@last), 1))');
      expect(procedure).toContain('WHILE @m <= @stop');
      expect(procedure).toMatch(/IF NOT EXISTS \( SELECT 1 FROM sys\.partition_range_values .* CAST\(rv\.value AS datetime2\(7\)\) = @boundary\)/);
    });

    it('serializes maintainers with an application lock and refuses a table that is not an event store', () => {
      expect(procedure).toContain(
        "EXEC @lock = sys.sp_getapplock @Resource = N'ensure_monthly_partitions', @LockMode = N'Exclusive', @LockOwner = N'Transaction'",
      );
      expect(procedure).toContain("IF @table NOT IN (N'audit_events', N'security_events') THROW");
    });
  });

  describe('indexes', () => {
    it('turns every partial unique index of PostgreSQL into a filtered unique index of the same name', () => {
      const partial = [...pgDdl.matchAll(/CREATE\s+UNIQUE\s+INDEX\s+(\w+)\s+ON\s+(\w+)[\s\S]*?\)\s*WHERE\s+([^;]+)/gi)];
      expect(partial.length).toBeGreaterThan(0);
      for (const [, name, table] of partial) {
        const ix = schema.indexes.get(name!);
        expect({ name, table: ix?.table, unique: ix?.unique, filtered: !!ix?.filter }).toEqual({ name, table, unique: true, filtered: true });
      }
    });

    it('keeps the filtered index of active refresh tokens and the one-active-entry-per-provincia rule', () => {
      expect(schema.indexes.get('ix_refresh_tokens_user_active')).toMatchObject({ keys: 'user_id', filter: 'revoked_at IS NULL' });
      expect(schema.indexes.get('uq_ingresos_brutos_provincia_activa')).toMatchObject({ unique: true, keys: 'provincia', filter: 'activo = 1' });
    });

    it('makes active sibling rubro names unique per parent (roots included) and case-insensitively', () => {
      // a unique index treats NULL parent_ids as equal (PostgreSQL: coalesce(parent_id, 0)); the
      // column's CI collation compares like lower(nombre)
      expect(schema.tables.get('rubros')!.columns.get('nombre')!.definition).toMatch(/^nvarchar\(100\) COLLATE Latin1_General_100_CI_AS NOT NULL/);
      expect(schema.indexes.get('uq_rubros_active_sibling_nombre')).toMatchObject({ unique: true, keys: 'parent_id, nombre', filter: 'activo = 1' });
    });
  });

  describe('types', () => {
    const code = () => ddl.replace(/N?'(?:[^']|'')*'/g, "''");

    it('uses datetime2 for every timestamp, never datetime, timestamptz or a server-local clock', () => {
      expect(code()).not.toMatch(/\bdatetime\b(?!2|offset)/i);
      expect(code()).not.toMatch(/\b(timestamptz|timestamp|smalldatetime|datetimeoffset)\b/i);
      expect(code()).not.toMatch(/\b(GETDATE|SYSDATETIME|CURRENT_TIMESTAMP|now)\s*\(/i);
      for (const table of schema.tables.values()) {
        for (const column of table.columns.values()) {
          if (/_at$|^ultimo_login$|^valid_(from|to)$/.test(column.name))
            expect(`${table.name}.${column.name} ${column.definition}`).toMatch(/ datetime2\(7\)/);
        }
      }
    });

    it('uses nvarchar, bit, uniqueidentifier and IDENTITY instead of the PostgreSQL types', () => {
      expect(code()).not.toMatch(/(?<!n)varchar\s*\(/i);
      expect(code()).not.toMatch(/\b(text|jsonb?|uuid|boolean|serial|bigserial|numeric|tstzrange|interval)\b/i);
    });

    it('checks every JSON column with ISJSON', () => {
      for (const [table, column] of [
        ['users', 'permission_overrides'],
        ['audit_events', 'metadata'],
        ['security_events', 'metadata'],
      ] as const) {
        expect(schema.tables.get(table)!.columns.get(column)!.definition).toMatch(
          new RegExp(String.raw`^nvarchar\(max\) .*CHECK \(ISJSON\(${column}\) = 1\)$`, 's'),
        );
      }
    });
  });

  describe('append-only event stores', () => {
    it('denies the service role UPDATE, DELETE and ALTER (TRUNCATE) on both event stores', () => {
      for (const store of ['audit_events', 'security_events']) {
        expect(flat(ddl)).toContain(`DENY UPDATE, DELETE, ALTER ON OBJECT::dbo.${store} TO medios_app_role;`);
      }
    });

    it("denies the service role writes to the migrations' bookkeeping, which the schema-wide grant covers (PostgreSQL revokes them)", () => {
      expect(flat(ddl)).toContain('DENY INSERT, UPDATE, DELETE, ALTER ON OBJECT::dbo.migrations TO medios_app_role;');
    });

    it.each(['purge_events', 'purge_event_partitions'])(
      'runs %s with the owner’s rights and refuses a cutoff younger than the retention less 31 days',
      (name) => {
        // the procedure as the last migration that defines it leaves it
        const body = flat(stripComments(statements.findLast((s) => new RegExp(String.raw`PROCEDURE dbo\.${name}\b`).test(s.sql))!.sql));
        expect(body).toContain('WITH EXECUTE AS OWNER AS BEGIN');
        expect(body).toContain(
          "IF @cutoff > DATEADD(day, 31, DATEADD(year, CASE @store WHEN N'audit_events' THEN -10 ELSE -5 END, SYSUTCDATETIME())) THROW",
        );
        expect(body).toContain("IF @store NOT IN (N'audit_events', N'security_events') THROW");
      },
    );

    it('keeps the event ids growing across a partition truncation: an identity it reset is reseeded past the last id handed out', () => {
      const body = flat(stripComments(statements.findLast((s) => /PROCEDURE dbo\.purge_event_partitions\b/.test(s.sql))!.sql));
      const read = body.indexOf('DECLARE @last bigint = CAST(IDENT_CURRENT(@table) AS bigint);');
      const truncate = body.indexOf("SET @sql = N'TRUNCATE TABLE ' + @table");
      const reseed = body.indexOf(
        "IF CAST(IDENT_CURRENT(@table) AS bigint) < @last BEGIN SET @sql = N'DBCC CHECKIDENT (N''' + @table + N''', RESEED, ' + CAST(@last + 1 AS nvarchar(20))",
      );
      expect(read).toBeGreaterThan(0);
      expect(truncate).toBeGreaterThan(read);
      expect(reseed).toBeGreaterThan(truncate);
    });

    it('lends dbo.ensure_monthly_partitions ALTER ANY DATASPACE through a certificate signature, without keeping the private key', () => {
      const signing = flat(stripComments(statements.find((s) => s.sql.includes('ADD SIGNATURE TO dbo.ensure_monthly_partitions'))!.sql));
      expect(signing).toContain('GRANT ALTER ANY DATASPACE TO medios_partition_maintenance');
      expect(signing).toContain('ALTER CERTIFICATE medios_partition_maintenance REMOVE PRIVATE KEY');
      expect(signing).toContain('GRANT EXECUTE ON OBJECT::dbo.ensure_monthly_partitions TO medios_app_role;');
      // the signature dies with any later ALTER of the procedure: no migration after it may alter it
      const later = statements.slice(statements.findIndex((s) => s.sql.includes('ADD SIGNATURE TO dbo.ensure_monthly_partitions')) + 1);
      expect(later.filter((s) => /(ALTER|CREATE\s+OR\s+ALTER)\s+PROCEDURE\s+dbo\.ensure_monthly_partitions/i.test(s.sql))).toEqual([]);
    });

    it('empties medios_app_role of its members before dropping it in down() (DROP ROLE fails while the service user is a member)', async () => {
      const down = (await captureMssqlStatements()).filter((s) => s.source === 'AppendOnly1763712600000.down').map((s) => flat(stripComments(s.sql)));
      const body = down.join(' ');
      const dropMembers = body.indexOf("N'ALTER ROLE medios_app_role DROP MEMBER ' + QUOTENAME(m.name)");
      expect(dropMembers).toBeGreaterThan(-1);
      expect(body).toContain("WHERE r.name = N'medios_app_role'; IF @drop_members IS NOT NULL EXEC sys.sp_executesql @drop_members;");
      expect(body.indexOf('DROP ROLE medios_app_role')).toBeGreaterThan(body.indexOf('EXEC sys.sp_executesql @drop_members'));
    });
  });

  describe('code columns', () => {
    const CODES: ReadonlyArray<readonly [string, string]> = [
      ['roles', 'codigo'],
      ['permissions', 'codigo'],
      ['medios', 'codigo'],
      ['secciones', 'codigo'],
      ['product_types', 'codigo'],
      ['products', 'codigo'],
      ['ingresos_brutos', 'provincia'],
    ];

    it('compares every code case-sensitively, as PostgreSQL does: a binary collation on each code column, the history tables included', () => {
      for (const [table, column] of CODES) {
        for (const t of [table, schema.tables.get(table)!.historyTable].filter((n): n is string => !!n)) {
          expect(`${t}.${column} ${schema.tables.get(t)!.columns.get(column)!.definition}`).toMatch(
            / nvarchar\(\d+\) COLLATE Latin1_General_100_BIN2 NOT NULL$/,
          );
        }
      }
      // and any text column named codigo added later
      for (const t of schema.tables.values()) {
        const c = t.columns.get('codigo');
        if (c && /^nvarchar/i.test(c.definition)) expect(`${t.name} ${c.definition}`).toMatch(/COLLATE Latin1_General_100_BIN2/);
      }
    });

    it('drops what depends on a code column before changing its collation and recreates it after, as it was', () => {
      const migration = statements.filter((s) => s.migration === 'CodeCollation1763713100000').map((s) => flat(stripComments(s.sql)));
      const text = migration.join(' ');
      const before = parseMssqlDdl(statements.filter((s) => s.migration !== 'CodeCollation1763713100000').map((s) => s.sql));
      for (const [table, column] of CODES) {
        const alter = text.indexOf(`ALTER TABLE dbo.${table} ALTER COLUMN ${column} `);
        expect(alter).toBeGreaterThan(-1);
        const tables = [table, before.tables.get(table)!.historyTable];
        const dependents = [...before.indexes.values()]
          .filter((ix) => tables.includes(ix.table) && ix.keys.split(',').some((k) => k.trim().split(' ')[0] === column))
          .map((ix) => ix.name);
        if (before.checks.get(`ck_${table}_${column}`) === table) dependents.push(`ck_${table}_${column}`);
        expect(dependents.length).toBeGreaterThan(0);
        for (const name of dependents) {
          const dropped = new RegExp(String.raw`(DROP CONSTRAINT ${name};|DROP INDEX ${name} ON)`).exec(text);
          expect({ name, droppedBeforeAlter: !!dropped && dropped.index < alter }).toEqual({ name, droppedBeforeAlter: true });
          const recreated = text.indexOf(` ${name} `, alter);
          expect({ name, recreatedAfterAlter: recreated > alter }).toEqual({ name, recreatedAfterAlter: true });
          const was = before.indexes.get(name);
          if (was) expect(schema.indexes.get(name)).toEqual(was);
          else expect(schema.checks.get(name)).toBe(table);
        }
      }
    });

    it('compares hashes exactly: token_hash and password_hash take the binary collation', () => {
      for (const [table, column] of [
        ['refresh_tokens', 'token_hash'],
        ['users', 'password_hash'],
      ] as const) {
        expect(`${table}.${column} ${schema.tables.get(table)!.columns.get(column)!.definition}`).toMatch(
          / nvarchar\(\d+\) COLLATE Latin1_General_100_BIN2 NOT NULL$/,
        );
      }
    });

    it('changes roles and permissions while they stay system-versioned (the engine carries ALTER COLUMN to the history table)', () => {
      const migration = statements
        .filter((s) => s.migration === 'CodeCollation1763713100000')
        .map((s) => s.sql)
        .join('\n');
      expect(migration).not.toMatch(/SYSTEM_VERSIONING/i);
      expect(schema.tables.get('roles')?.historyTable).toBe('roles_history');
      expect(schema.tables.get('permissions')?.historyTable).toBe('permissions_history');
    });
  });

  describe('operator documentation and the compose init script', () => {
    const roleCommands = (text: string) =>
      [...text.matchAll(/\b(?:ALTER\s+ROLE\s+(\w+)\s+(?:ADD|DROP)\s+MEMBER|(?:GRANT|DENY)\s+[\w ,]+?\s+TO\s+(\w+))/gi)].map((m) => m[1] ?? m[2]!);
    let created: Set<string>;
    beforeAll(async () => {
      const all = (await captureMssqlStatements()).map((s) => s.sql).join('\n');
      created = new Set([...all.matchAll(/CREATE\s+ROLE\s+(\w+)/gi)].map((m) => m[1]!));
    });

    it.each(['docs/sqlserver.md', 'deploy/sqlserver/init.sql'])(
      '%s adds members to and grants to only the roles the migrations create (or built-in ones)',
      (file) => {
        const text = readFileSync(file, 'utf8');
        const named = roleCommands(text);
        expect(named.length).toBeGreaterThan(0);
        expect(created).toEqual(new Set(['medios_app_role']));
        for (const role of named) expect({ role, known: created.has(role) || /^db_\w+$/.test(role) }).toEqual({ role, known: true });
        expect(named).toContain('medios_app_role');
      },
    );

    it('never tells operators to use a SQL Server role named medios_app (the PostgreSQL role’s name; Msg 15151 on SQL Server)', () => {
      const docs = readFileSync('docs/sqlserver.md', 'utf8');
      expect(docs).not.toMatch(/\bmedios_app\b/);
      expect(readFileSync('src/database/dialects/mssql.dialect.ts', 'utf8')).not.toMatch(/\bmedios_app\b/);
    });
  });

  it('seeds the canonical roles, the permission catalog and its role assignments exactly as the PostgreSQL migrations do', async () => {
    const mssql = catalogInserted(statements);
    expect(mssql).toEqual(await installedCatalog(POSTGRES_MIGRATIONS));
    expect(mssql.roles.map((r) => r.codigo)).toEqual(['admin', 'supervisor', 'cajero', 'vendedor', 'contable', 'auditor', 'diagramador', 'consulta']);
    const roles = new Set(mssql.roles.map((r) => r.codigo));
    const codes = new Set(mssql.permissions.map((p) => p.codigo));
    expect(mssql.grants.filter(([codigo, rol]) => !codes.has(codigo) || !roles.has(rol))).toEqual([]);
  });

  it('inserts every code of the permission registry, and no other: a new code ships with the migration that inserts it', () => {
    const codes = catalogInserted(statements).permissions.map((p) => p.codigo);
    expect(codes.sort()).toEqual(REGISTERED_PERMISSION_CODES);
  });
});
