import { type DataSource, type EntityManager, MssqlParameter } from 'typeorm';
import type { Queryable } from './dialects/sql-dialect.js';

/** The values of a statement's `:name` parameters. */
export type StatementValues = Readonly<Record<string, unknown>>;

/**
 * A statement written once and run many times, for the hot paths of BENCHMARKS.md (the guarded
 * read, the audited create, the audit insert), where building the SQL through the entity manager
 * or the query builder on every request cost more CPU than running it.
 *
 * The text is portable SQL with `:name` parameters (engine-specific text comes from the dialect,
 * e.g. `SqlDialect.insertStatement`). On its first run for an engine, TypeORM's driver writes the
 * engine's placeholders (`$1` on PostgreSQL, `@0` on SQL Server); the result is kept with the
 * order in which the values are passed, so later runs only pick the values. It runs wherever the
 * caller says: the data source, or the request transaction's entity manager.
 */
export class PreparedStatement<Row = Record<string, unknown>> {
  private compiled?: { sql: string; order: string[] };

  /**
   * `name` makes it a named statement on PostgreSQL: pg parses and plans it once per pooled
   * connection and then only binds values (the guard's per-request read, the medio read and insert,
   * the audit insert). On the data source or its manager it runs on the pool; on a transaction's
   * manager, on the transaction's own connection. SQL Server needs no name: every statement goes
   * out parameterized through sp_executesql, whose plan is cached by its text and reused. A name
   * must belong to one text only.
   */
  constructor(
    readonly text: string,
    readonly options: { name?: string } = {},
  ) {}

  /**
   * Not an async function: the guarded read runs two statements per request, and the promise and
   * microtask of each async wrapper showed up in its allocation profile (BENCHMARKS.md). A missing
   * value still comes back as a rejected promise, as from an async function.
   */
  run(db: Queryable, values: StatementValues): Promise<Row[]> {
    try {
      return this.send(db, values);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The first row, or undefined. */
  one(db: Queryable, values: StatementValues): Promise<Row | undefined> {
    return this.run(db, values).then(firstOf);
  }

  private send(db: Queryable, values: StatementValues): Promise<Row[]> {
    const driver = driverOf(db);
    const { sql, order } = this.compile(db);
    const sqlServer = driver.options.type === 'mssql';
    const parameters = new Array<unknown>(order.length);
    for (let i = 0; i < order.length; i++) {
      const name = order[i] as string;
      if (!Object.hasOwn(values, name)) throw new Error(`prepared statement: no value for :${name}`);
      parameters[i] = sqlServer ? sqlServerParameter(values[name]) : values[name];
    }
    const target = this.options.name ? postgresTarget(db, driver) : undefined;
    if (target === undefined) return db.query(sql, parameters) as Promise<Row[]>;
    const config = { name: this.options.name, text: sql, values: parameters };
    const result = target instanceof Promise ? target.then((client) => client.query(config)) : target.query(config);
    return result.then(rowsOf) as Promise<Row[]>;
  }

  private compile(db: Queryable): { sql: string; order: string[] } {
    if (!this.compiled) {
      const names = [...new Set([...this.text.matchAll(/(?<!:):([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] as string))];
      // each parameter gets a value only it has, so the driver's parameter list tells the order
      const markers = Object.fromEntries(names.map((name, i) => [name, `\u0000${i}:${name}`]));
      const [sql, parameters] = driverOf(db).escapeQueryWithParameters(this.text, markers);
      const order = parameters.map((marker) => {
        const name = names.find((n) => markers[n] === marker);
        if (name === undefined) throw new Error('prepared statement: the driver changed a parameter value');
        return name;
      });
      this.compiled = { sql, order };
    }
    return this.compiled;
  }
}

interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const rowsOf = (result: { rows: unknown[] }) => result.rows;
const firstOf = <T>(rows: T[]): T | undefined => rows[0];

/**
 * Where a named statement runs on PostgreSQL: the pool behind a data source or behind a manager
 * outside any transaction (at once), or the pg client of a transaction's query runner (its
 * statements must stay on that connection; a promise, since the runner may still have to acquire
 * it). Undefined on SQL Server.
 */
function postgresTarget(db: Queryable, driver: ReturnType<typeof driverOf>): PgQueryable | Promise<PgQueryable> | undefined {
  if (driver.options.type !== 'postgres') return undefined;
  const runner = 'manager' in db && 'driver' in db ? undefined : (db as EntityManager).queryRunner;
  if (!runner) return (driver as unknown as { master: PgQueryable }).master;
  if (runner.isReleased) throw new Error('prepared statement: the query runner is released');
  // PostgresQueryRunner.connect() hands back the pg client it holds (acquired once per runner)
  return runner.connect() as Promise<PgQueryable>;
}

/**
 * A string parameter on SQL Server with a fixed declared length. Left to the driver, a string goes
 * out as `nvarchar(<its own length>)`, so every new length of a codigo, a nombre or a user agent
 * changes sp_executesql's parameter list and SQL Server compiles and caches another plan for the
 * same statement; declared as nvarchar(4000) (nvarchar(max) beyond that) one plan serves them all.
 */
export function sqlServerParameter(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  // TypeORM types the length as a number; mssql also takes 'max' (tedious's MAX)
  return new MssqlParameter(value, 'nvarchar', value.length <= 4000 ? 4000 : ('max' as unknown as number));
}

function driverOf(db: Queryable) {
  return 'manager' in db && 'driver' in db ? (db as DataSource).driver : (db as EntityManager).connection.driver;
}
