import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MSSQL_MIGRATIONS } from '../../migrations/mssql/index.js';
import { captureMigrations, type DeclaredSchema, parseMssqlDdl } from '../support/mssql-ddl.js';
import { TestDatabase, testEngine } from '../support/test-database.js';

/**
 * Guards the SQL Server schema as the PostgreSQL one evolves. The SQL Server migrations cannot
 * run on the development machine, so their T-SQL is parsed (test/support/mssql-ddl.ts) and
 * compared with the live schema of this run's database:
 * - on PostgreSQL (every run here): the PostgreSQL migrations as applied, read from the catalog,
 *   must have a SQL Server counterpart of every table, column, index and check constraint;
 * - on SQL Server (DATABASE_URL=mssql://…): what SQL Server built must be exactly what the parser
 *   read, which also proves the parser; a few engine facts are checked on top (temporal tables,
 *   partition boundaries, the maintenance procedure, collations).
 *
 * Differences by design, and only these:
 * - PostgreSQL only: the `system_versioning` table (SQL Server reports retention in sys.tables)
 *   and the `sys_period` column of the versioned tables and their histories; primary keys named
 *   `<table>_pkey` by PostgreSQL (`pk_<table>` on SQL Server); `ix_<t>_history_end`, which SQL
 *   Server provides as the clustered (valid_to, valid_from) index it creates on each history table.
 * - SQL Server only: the hidden period columns `valid_from` / `valid_to`, computed columns (none
 *   yet), the `pk_<table>` names, and the ISJSON checks `ck_<table>_<column>_json` of the JSON
 *   documents. Index keys that are expressions on PostgreSQL (rubros' sibling-name rule) are
 *   plain columns on SQL Server; mssql-migrations.spec.ts pins that index.
 */
const PG_ONLY_TABLES = new Set(['system_versioning', 'migrations', 'typeorm_metadata']);
const PG_ONLY_COLUMNS = new Set(['sys_period']);
const TYPEORM_TABLES = new Set(['migrations', 'typeorm_metadata']);

interface LiveSchema {
  columns: string[];
  /** keys: the key columns in order, `col` or `col DESC`, comma-separated */
  indexes: Array<{ name: string; table: string; unique: boolean; filtered: boolean; keys: string }>;
  checks: string[];
}

async function livePostgres(d: TestDatabase): Promise<LiveSchema> {
  // tables and partitioned parents of the public schema, not the partitions themselves
  const tables = (join: string) => `FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace ${join}
    WHERE n.nspname = 'public' AND t.relkind IN ('r', 'p') AND NOT t.relispartition`;
  const columns: Array<{ t: string; c: string }> = await d.query(
    `SELECT t.relname AS t, a.attname AS c ${tables('JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped')}`,
  );
  const indexes: Array<{ name: string; t: string; is_unique: boolean; filtered: boolean; def: string }> = await d.query(
    `SELECT i.relname AS name, t.relname AS t, x.indisunique AS is_unique, x.indpred IS NOT NULL AS filtered, pg_get_indexdef(i.oid) AS def
     ${tables('JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class i ON i.oid = x.indexrelid')}`,
  );
  const checks: Array<{ name: string }> = await d.query(
    `SELECT con.conname AS name ${tables("JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype = 'c'")}`,
  );
  return {
    columns: columns
      .filter((r) => !PG_ONLY_TABLES.has(r.t) && !PG_ONLY_COLUMNS.has(r.c))
      .map((r) => `${r.t}.${r.c}`)
      .sort(),
    indexes: indexes
      .filter((r) => !PG_ONLY_TABLES.has(r.t) && !r.name.endsWith('_pkey') && !/^ix_\w+_history_end$/.test(r.name))
      .map((r) => ({ name: r.name, table: r.t, unique: r.is_unique, filtered: r.filtered, keys: keysOf(r.def) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    checks: checks.map((r) => r.name).sort(),
  };
}

/** The key list of `CREATE INDEX … USING btree (keys) [WHERE …]`; the period bounds as SQL Server's period columns. */
function keysOf(indexdef: string): string {
  const open = indexdef.indexOf('(', indexdef.indexOf(' USING '));
  let depth = 0;
  let close = open;
  for (; close < indexdef.length; close++) {
    if (indexdef[close] === '(') depth++;
    else if (indexdef[close] === ')' && --depth === 0) break;
  }
  return normalizeKeys(
    indexdef
      .slice(open + 1, close)
      .replace(/upper\(sys_period\)/g, 'valid_to')
      .replace(/lower\(sys_period\)/g, 'valid_from'),
  );
}

function normalizeKeys(keys: string): string {
  return keys
    .split(',')
    .map((k) =>
      k
        .trim()
        .replace(/\s+/g, ' ')
        .replace(/ ASC$/i, '')
        .replace(/ DESC$/i, ' DESC')
        .replace(/^\[|\](?= DESC$|$)/g, ''),
    )
    .join(', ');
}

async function liveSqlServer(d: TestDatabase): Promise<LiveSchema> {
  const columns: Array<{ t: string; c: string }> = await d.query(
    `SELECT t.name AS t, c.name AS c FROM sys.tables t JOIN sys.columns c ON c.object_id = t.object_id WHERE t.schema_id = SCHEMA_ID('dbo')`,
  );
  const indexes: Array<{ name: string; t: string; is_unique: boolean; filtered: boolean; history: number; keys: string }> = await d.query(
    `SELECT i.name, t.name AS t, i.is_unique, i.has_filter AS filtered, CASE WHEN t.temporal_type = 1 THEN 1 ELSE 0 END AS history,
            (SELECT STRING_AGG(c.name + CASE WHEN ic.is_descending_key = 1 THEN ' DESC' ELSE '' END, ', ') WITHIN GROUP (ORDER BY ic.key_ordinal)
               FROM sys.index_columns ic JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
              WHERE ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.key_ordinal > 0) AS keys
       FROM sys.indexes i JOIN sys.tables t ON t.object_id = i.object_id
      WHERE t.schema_id = SCHEMA_ID('dbo') AND i.name IS NOT NULL AND i.type > 0`,
  );
  const checks: Array<{ name: string }> = await d.query(`SELECT name FROM sys.check_constraints WHERE schema_id = SCHEMA_ID('dbo')`);
  return {
    columns: columns
      .filter((r) => !TYPEORM_TABLES.has(r.t))
      .map((r) => `${r.t}.${r.c}`)
      .sort(),
    indexes: indexes
      // the clustered (valid_to, valid_from) index SQL Server creates on each history table
      .filter((r) => !TYPEORM_TABLES.has(r.t) && !(r.history === 1 && r.name === `ix_${r.t}`))
      .map((r) => ({ name: r.name, table: r.t, unique: Boolean(r.is_unique), filtered: Boolean(r.filtered), keys: r.keys }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    checks: checks.map((r) => r.name).sort(),
  };
}

/** The declared SQL Server schema; `comparable` leaves out what exists on SQL Server only. */
function declared(schema: DeclaredSchema, comparable: boolean): LiveSchema {
  const columns: string[] = [];
  for (const t of schema.tables.values()) {
    for (const c of t.columns.values()) {
      if (comparable && (c.period || c.computed || (t.isHistory && isSqlServerOnlyColumn(schema, t.name, c.name)))) continue;
      columns.push(`${t.name}.${c.name}`);
    }
  }
  return {
    columns: columns.sort(),
    indexes: [...schema.indexes.values()]
      .filter((ix) => !comparable || !ix.name.startsWith('pk_'))
      .map((ix) => ({ name: ix.name, table: ix.table, unique: ix.unique, filtered: ix.filter !== null, keys: normalizeKeys(ix.keys) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    // ck_<table>_<column>_json: the ISJSON checks of the JSON documents (PostgreSQL: jsonb / text)
    checks: [...schema.checks.keys()].filter((name) => !comparable || !/_json$/.test(name)).sort(),
  };
}

/** A history table's copy of a period or computed column of its temporal table. */
function isSqlServerOnlyColumn(schema: DeclaredSchema, history: string, column: string): boolean {
  const base = [...schema.tables.values()].find((t) => t.historyTable === history);
  const c = base?.columns.get(column);
  return !!c && (c.period || c.computed);
}

describe('schema parity of the SQL Server migrations', () => {
  const engine = testEngine();
  let d: TestDatabase;
  let schema: DeclaredSchema;
  let live: LiveSchema;
  let mine: LiveSchema;

  beforeAll(async () => {
    schema = parseMssqlDdl((await captureMigrations(MSSQL_MIGRATIONS)).map((s) => s.sql));
    d = await TestDatabase.create();
    live = engine === 'postgres' ? await livePostgres(d) : await liveSqlServer(d);
    mine = declared(schema, engine === 'postgres');
  });
  afterAll(async () => {
    await d?.close();
  });

  const subject = engine === 'postgres' ? 'as the applied PostgreSQL migrations' : 'as SQL Server built';

  it(`declares the same tables and column names ${subject}`, () => {
    expect(live.columns.length).toBeGreaterThan(50);
    expect(mine.columns).toEqual(live.columns);
  });

  it(`declares the same indexes, with the same keys, unique where they are unique and filtered where they are partial, ${subject}`, () => {
    // PostgreSQL's expression keys (coalesce(parent_id, 0), lower(nombre)) are plain columns with
    // the same meaning on SQL Server (NULLs equal in a unique index, a CI collation): pinned by
    // mssql-migrations.spec.ts, not comparable here
    const expressionKeys = new Set(live.indexes.filter((ix) => engine === 'postgres' && ix.keys.includes('(')).map((ix) => ix.name));
    const comparable = (list: LiveSchema['indexes']) => list.map((ix) => (expressionKeys.has(ix.name) ? { ...ix, keys: '(expressions)' } : ix));
    expect(comparable(mine.indexes)).toEqual(comparable(live.indexes));
  });

  it(`declares the same named check constraints ${subject}`, () => {
    expect(mine.checks).toEqual(live.checks);
  });

  // Facts only a SQL Server can show; on PostgreSQL the same rules are tested through its own
  // schema by the platform and audit tests.
  if (engine === 'mssql') {
    it('makes the four versioned tables temporal with a 10-year history retention that the database enforces', async () => {
      const rows: Array<{ name: string; history: string; period: number; unit: string; enforced: number }> = await d.query(
        `SELECT t.name, h.name AS history, t.history_retention_period AS period, t.history_retention_period_unit_desc AS unit,
                CAST(db.is_temporal_history_retention_enabled AS int) AS enforced
           FROM sys.tables t JOIN sys.tables h ON h.object_id = t.history_table_id CROSS JOIN sys.databases db
          WHERE t.temporal_type = 2 AND db.database_id = DB_ID() ORDER BY t.name`,
      );
      expect(rows).toEqual(
        ['permissions', 'role_permissions', 'roles', 'users'].map((name) => ({
          name,
          history: `${name}_history`,
          period: 10,
          unit: 'YEAR',
          enforced: 1,
        })),
      );
    });

    it('partitions both stores by one RANGE RIGHT function with boundaries from the previous month through the month after the third ahead', async () => {
      const [fn]: Array<{ right: boolean; fanout: number }> = await d.query(
        `SELECT boundary_value_on_right AS [right], fanout FROM sys.partition_functions WHERE name = 'pf_events_monthly'`,
      );
      expect(fn).toEqual({ right: true, fanout: 7 });
      const bounds: Array<{ b: Date }> = await d.query(
        `SELECT CAST(rv.value AS datetime2(7)) AS b FROM sys.partition_range_values rv JOIN sys.partition_functions pf ON pf.function_id = rv.function_id
          WHERE pf.name = 'pf_events_monthly' ORDER BY rv.boundary_id`,
      );
      const now = new Date();
      const month = (k: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + k, 1)).toISOString();
      expect(bounds.map((r) => r.b.toISOString())).toEqual([-1, 0, 1, 2, 3, 4].map(month));
      const schemes: Array<{ t: string; scheme: string }> = await d.query(
        `SELECT DISTINCT t.name AS t, ps.name AS scheme FROM sys.indexes i JOIN sys.tables t ON t.object_id = i.object_id
           JOIN sys.partition_schemes ps ON ps.data_space_id = i.data_space_id
          WHERE t.name IN ('audit_events', 'security_events') ORDER BY t.name`,
      );
      expect(schemes).toEqual([
        { t: 'audit_events', scheme: 'ps_events_monthly' },
        { t: 'security_events', scheme: 'ps_events_monthly' },
      ]);
    });

    it('splits missing months once through ensure_monthly_partitions, for both stores at once', async () => {
      const now = new Date();
      const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 5, 1));
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 6, 1));
      const run = async (table: string) => Number((await d.query(`EXEC dbo.ensure_monthly_partitions $1, $2, $3`, [table, first, last]))[0].created);
      expect(await run('audit_events')).toBe(2);
      expect(await run('security_events')).toBe(0);
      expect(await run('audit_events')).toBe(0);
      await expect(run('users')).rejects.toThrow(/audit_events or security_events/);
    });

    it('keeps usernames case-sensitive like PostgreSQL and refuses a metadata document that is not JSON', async () => {
      await d.query(`INSERT INTO users (username, password_hash, nombre, apellido, email, role_id) VALUES ('Parity', 'x', 'a', 'b', 'p@x', 1)`);
      await d.query(`INSERT INTO users (username, password_hash, nombre, apellido, email, role_id) VALUES ('parity', 'x', 'a', 'b', 'p@x', 1)`);
      expect(await d.query(`SELECT id FROM users WHERE username = $1`, ['parity'])).toHaveLength(1);
      await expect(
        d.query(`INSERT INTO audit_events (actor_user_id, action, target_type, target_id, metadata) VALUES (1, 'a', 'b', 'c', 'not json')`),
      ).rejects.toThrow(/ck_audit_events_metadata_json/);
    });
  }
});
