import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a list of migrations sends to the database, without a database: each migration's up()
 * runs against a QueryRunner that records the statements (and their parameters) and answers [].
 */
export interface CapturedStatement {
  migration: string;
  sql: string;
  parameters: unknown[];
}

export async function captureMigrations(migrations: ReadonlyArray<new () => MigrationInterface>): Promise<CapturedStatement[]> {
  const captured: CapturedStatement[] = [];
  for (const M of migrations) {
    const migration = new M();
    const name = migration.name ?? M.name;
    const runner = {
      query: async (sql: string, parameters: unknown[] = []) => {
        captured.push({ migration: name, sql, parameters });
        return [];
      },
    } as unknown as QueryRunner;
    await migration.up(runner);
  }
  return captured;
}

/** The DDL with `--` and block comments removed (string literals kept intact). */
export function stripComments(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    if (c === "'") {
      const end = literalEnd(sql, i);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      out += ' ';
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the string literal that starts at `start` ('' is an escaped quote). */
function literalEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === "'") {
      if (sql[i + 1] === "'") i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** Index of the parenthesis that closes the one at `open`, skipping string literals. */
function closingParen(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") i = literalEnd(sql, i) - 1;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses after: ${sql.slice(open, open + 80)}`);
}

/** Splits at the commas that are not inside parentheses or string literals. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") i = literalEnd(text, i) - 1;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(text.slice(from));
  return parts.map((p) => p.trim()).filter(Boolean);
}

const unquote = (name: string) => name.replace(/^\[|\]$/g, '').replace(/^"|"$/g, '');
const NAME = String.raw`(?:(?:\[?dbo\]?)\.)?(\[[^\]]+\]|\w+)`;

export interface DeclaredColumn {
  name: string;
  /** the column's definition after its name */
  definition: string;
  /** `name AS expression`: a computed column, no data of its own */
  computed: boolean;
  /** GENERATED ALWAYS AS ROW START/END: a temporal period column */
  period: boolean;
}

export interface DeclaredIndex {
  name: string;
  table: string;
  unique: boolean;
  /** the WHERE of a filtered index */
  filter: string | null;
  /** the key columns as written */
  keys: string;
  /** the `ON <scheme> (col)` / `ON [filegroup]` storage clause, when given */
  storage: string | null;
}

export interface DeclaredTable {
  name: string;
  columns: Map<string, DeclaredColumn>;
  /** SYSTEM_VERSIONING = ON (HISTORY_TABLE = …): the history table's name */
  historyTable: string | null;
  /** HISTORY_RETENTION_PERIOD as written (e.g. "10 YEARS") */
  historyRetention: string | null;
  /** the `ON <scheme> (col)` storage clause of the table */
  storage: string | null;
  /** the history table SQL Server creates for a temporal table */
  isHistory: boolean;
}

export interface DeclaredSchema {
  tables: Map<string, DeclaredTable>;
  indexes: Map<string, DeclaredIndex>;
  /** named CHECK constraints, by name → table */
  checks: Map<string, string>;
}

/**
 * A small parser of the T-SQL DDL the SQL Server migrations write: CREATE TABLE (columns,
 * computed and period columns, named UNIQUE / PRIMARY KEY / CHECK constraints, the temporal
 * clause, the storage clause), ALTER TABLE … ADD / DROP COLUMN / ALTER COLUMN / DROP CONSTRAINT, CREATE [UNIQUE] INDEX … [WHERE],
 * DROP TABLE / DROP INDEX. Dynamic SQL (sp_executesql) is not followed. Enough to compare the
 * declared schema with PostgreSQL's and with what SQL Server reports.
 */
export function parseMssqlDdl(statements: readonly string[]): DeclaredSchema {
  const schema: DeclaredSchema = { tables: new Map(), indexes: new Map(), checks: new Map() };
  for (const raw of statements) {
    const sql = stripComments(raw);
    const re = new RegExp(
      String.raw`\bCREATE\s+TABLE\s+${NAME}\s*\(|\bALTER\s+TABLE\s+${NAME}\s+(ADD|DROP\s+COLUMN|DROP\s+CONSTRAINT|ALTER\s+COLUMN)\s+|\bCREATE\s+(UNIQUE\s+)?(?:(?:NON)?CLUSTERED\s+)?INDEX\s+${NAME}\s+ON\s+${NAME}\s*\(|\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([^;]+)|\bDROP\s+INDEX\s+(?:IF\s+EXISTS\s+)?${NAME}\s+ON\s+${NAME}`,
      'gi',
    );
    let m: RegExpExecArray | null;
    while ((m = re.exec(sql))) {
      if (m[1]) {
        const open = m.index + m[0].length - 1;
        const close = closingParen(sql, open);
        const table = createTable(schema, unquote(m[1]), sql.slice(open + 1, close), sql.slice(close + 1, statementEnd(sql, close + 1)));
        schema.tables.set(table.name, table);
        if (table.historyTable) {
          schema.tables.set(table.historyTable, {
            name: table.historyTable,
            columns: new Map([...table.columns].map(([k, c]) => [k, { ...c, computed: false }])),
            historyTable: null,
            historyRetention: null,
            storage: null,
            isHistory: true,
          });
        }
        re.lastIndex = close + 1;
      } else if (m[2]) {
        const tableName = unquote(m[2]);
        const end = statementEnd(sql, m.index + m[0].length);
        const items = splitTopLevel(sql.slice(m.index + m[0].length, end));
        const tables = [schema.tables.get(tableName), historyOf(schema, tableName)].filter((t): t is DeclaredTable => !!t);
        if (!tables.length) throw new Error(`ALTER TABLE of an undeclared table ${tableName}`);
        if (/^ADD$/i.test(m[3]!)) {
          for (const item of items) {
            if (/^CONSTRAINT\b/i.test(item)) {
              addConstraint(schema, tableName, item);
              continue;
            }
            const column = parseColumn(item);
            for (const t of tables) t.columns.set(column.name, t.isHistory ? { ...column, computed: false } : column);
          }
        } else if (/^ALTER\s+COLUMN$/i.test(m[3]!)) {
          // the engine propagates ALTER COLUMN of a temporal table to its history table
          const column = parseColumn(items.join(', '));
          const before = tables[0]!.columns.get(column.name);
          if (!before) throw new Error(`ALTER COLUMN of an undeclared column ${tableName}.${column.name}`);
          for (const t of tables) t.columns.set(column.name, { ...column, computed: false });
        } else if (/^DROP\s+CONSTRAINT$/i.test(m[3]!)) {
          for (const item of items) {
            const name = unquote(item.replace(/^CONSTRAINT\s+/i, '').trim());
            schema.checks.delete(name);
            schema.indexes.delete(name);
          }
        } else {
          for (const item of items) for (const t of tables) t.columns.delete(unquote(item));
        }
        re.lastIndex = end;
      } else if (m[5]) {
        const open = m.index + m[0].length - 1;
        const close = closingParen(sql, open);
        const rest = sql.slice(close + 1, statementEnd(sql, close + 1));
        const where = /^\s*WHERE\s+(.+?)(?=\s+(?:WITH|ON)\s|\s*$)/is.exec(rest);
        const storage = /\bON\s+(\w+\s*\(\s*\w+\s*\)|\[[^\]]+\])/i.exec(rest);
        schema.indexes.set(unquote(m[5]), {
          name: unquote(m[5]),
          table: unquote(m[6]!),
          unique: !!m[4],
          filter: where ? where[1]!.trim() : null,
          keys: sql.slice(open + 1, close).trim(),
          storage: storage ? storage[1]!.replace(/\s+/g, ' ') : null,
        });
        re.lastIndex = close + 1;
      } else if (m[7]) {
        for (const name of splitTopLevel(m[7])) {
          const t = unquote(name.replace(/^(?:\[?dbo\]?)\./i, '').trim());
          schema.tables.delete(t);
          for (const [k, ix] of schema.indexes) if (ix.table === t) schema.indexes.delete(k);
        }
      } else if (m[8]) {
        schema.indexes.delete(unquote(m[8]));
      }
    }
  }
  return schema;
}

function historyOf(schema: DeclaredSchema, table: string): DeclaredTable | undefined {
  const history = schema.tables.get(table)?.historyTable;
  return history ? schema.tables.get(history) : undefined;
}

/** End of the statement that continues at `from`: the next top-level `;`, or the end. */
function statementEnd(sql: string, from: number): number {
  let depth = 0;
  for (let i = from; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") i = literalEnd(sql, i) - 1;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ';' && depth === 0) return i;
  }
  return sql.length;
}

const CONSTRAINT_START = /^(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN|PERIOD|INDEX)\b/i;

function createTable(schema: DeclaredSchema, name: string, body: string, after: string): DeclaredTable {
  const columns = new Map<string, DeclaredColumn>();
  for (const item of splitTopLevel(body)) {
    if (CONSTRAINT_START.test(item)) {
      addConstraint(schema, name, item);
      continue;
    }
    const column = parseColumn(item);
    columns.set(column.name, column);
    // column-level named constraints: "... CONSTRAINT ck_x CHECK (...)", "... CONSTRAINT uq_x UNIQUE"
    for (const c of item.matchAll(/\bCONSTRAINT\s+(\[[^\]]+\]|\w+)\s+(CHECK|UNIQUE|PRIMARY\s+KEY)\b/gi)) {
      if (/^CHECK$/i.test(c[2]!)) schema.checks.set(unquote(c[1]!), name);
      else schema.indexes.set(unquote(c[1]!), { name: unquote(c[1]!), table: name, unique: true, filter: null, keys: column.name, storage: null });
    }
  }
  const versioning =
    /SYSTEM_VERSIONING\s*=\s*ON\s*\(\s*HISTORY_TABLE\s*=\s*(?:(?:\[?dbo\]?)\.)?(\[[^\]]+\]|\w+)(?:\s*,\s*HISTORY_RETENTION_PERIOD\s*=\s*([^)]+?))?\s*\)/i.exec(
      after,
    );
  const storage = /^\s*ON\s+(\w+\s*\(\s*\w+\s*\)|\[[^\]]+\])/i.exec(after);
  return {
    name,
    columns,
    historyTable: versioning ? unquote(versioning[1]!) : null,
    historyRetention: versioning?.[2]?.trim() ?? null,
    storage: storage ? storage[1]!.replace(/\s+/g, ' ') : null,
    isHistory: false,
  };
}

function parseColumn(item: string): DeclaredColumn {
  const m = /^(\[[^\]]+\]|\w+)\s+([\s\S]*)$/.exec(item.trim());
  if (!m) throw new Error(`cannot read the column definition: ${item}`);
  const definition = m[2]!.trim();
  return {
    name: unquote(m[1]!),
    definition,
    computed: /^AS\b/i.test(definition),
    period: /\bGENERATED\s+ALWAYS\s+AS\s+ROW\s+(START|END)\b/i.test(definition),
  };
}

function addConstraint(schema: DeclaredSchema, table: string, item: string): void {
  const named = /^CONSTRAINT\s+(\[[^\]]+\]|\w+)\s+(PRIMARY\s+KEY|UNIQUE|CHECK|FOREIGN\s+KEY)\b([\s\S]*)$/i.exec(item);
  if (!named) return;
  const name = unquote(named[1]!);
  const kind = named[2]!.toUpperCase().replace(/\s+/g, ' ');
  if (kind === 'CHECK') schema.checks.set(name, table);
  else if (kind === 'UNIQUE' || kind === 'PRIMARY KEY') {
    const open = named[3]!.indexOf('(');
    const keys = open >= 0 ? named[3]!.slice(open + 1, closingParen(named[3]!, open)).trim() : '';
    const storage = /\)\s*ON\s+(\w+\s*\(\s*\w+\s*\)|\[[^\]]+\])/i.exec(named[3]!);
    schema.indexes.set(name, { name, table, unique: true, filter: null, keys, storage: storage ? storage[1]!.replace(/\s+/g, ' ') : null });
  }
}
