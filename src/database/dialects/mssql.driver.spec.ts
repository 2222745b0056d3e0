import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { type DataSource, type EntityManager, MssqlParameter, QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { datetime2, MssqlDialect, mssqlDriver } from './mssql.dialect.js';
import type { ConnectionSettings } from './sql-dialect.js';

/**
 * The SQL Server dialect's connection, error and typing rules, without a server (the T-SQL of
 * the audit and maintenance methods is pinned in mssql.dialect.spec.ts). Dates must travel as
 * datetime2(7) — never datetime, whose 1/300 s rounding breaks keyset cursors and "as of" reads.
 */
interface Call {
  sql: string;
  parameters: unknown[];
}

function recorder(answer: () => unknown = () => [{}]): { db: EntityManager & DataSource; calls: Call[] } {
  const calls: Call[] = [];
  const db = {
    query: async (sql: string, parameters: unknown[] = []) => {
      calls.push({ sql, parameters });
      return answer();
    },
  };
  return { db: db as unknown as EntityManager & DataSource, calls };
}

const settings = (url: string): ConnectionSettings => ({
  url,
  poolSize: 7,
  statementTimeoutMs: 15_000,
  connectTimeoutMs: 5000,
  applicationName: 'spec',
});
const options = (url: string) =>
  new MssqlDialect().dataSourceOptions(settings(url)) as unknown as Record<string, unknown> & { options: Record<string, unknown> };
const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
const dialect = new MssqlDialect();

describe('MssqlDialect connection and typing', () => {
  describe('connection options', () => {
    it('reads host, port, credentials and database from an mssql:// URL, with UTC dates and lower-case GUIDs', () => {
      const o = options('mssql://sa:P%40ss@db.example:14330/medios?encrypt=false');
      expect(o).toMatchObject({
        type: 'mssql',
        host: 'db.example',
        port: 14330,
        username: 'sa',
        password: 'P@ss',
        database: 'medios',
        requestTimeout: 15_000,
      });
      expect(o.options).toMatchObject({ useUTC: true, lowerCaseGuids: true, encrypt: false, appName: 'spec' });
      expect(o.pool).toMatchObject({ max: 7 });
    });

    it('accepts sqlserver:// too and defaults to port 1433 and an encrypted connection that validates the server certificate', () => {
      const o = options('sqlserver://app:pw@sql1/medios');
      expect(o).toMatchObject({ host: 'sql1', port: 1433, database: 'medios' });
      expect(o.options).toMatchObject({ encrypt: true, trustServerCertificate: false });
    });

    it('refuses a URL without a database instead of building the schema in the login’s default database (master)', () => {
      for (const url of ['mssql://app:pw@sql1', 'mssql://app:pw@sql1/', 'sqlserver://app:pw@sql1:1433/?encrypt=true']) {
        expect(() => options(url)).toThrow(/DATABASE_URL names no database/);
      }
    });

    it('trusts the server certificate without validation only when the URL asks for it', () => {
      expect(options('mssql://app:pw@sql1/medios?trustServerCertificate=true').options.trustServerCertificate).toBe(true);
      expect(options('mssql://app:pw@sql1/medios?trustServerCertificate=1').options.trustServerCertificate).toBe(true);
      expect(options('mssql://app:pw@sql1/medios?trustServerCertificate=false').options.trustServerCertificate).toBe(false);
      expect(options('mssql://app:pw@sql1/medios?encrypt=true').options.trustServerCertificate).toBe(false);
    });

    it('reaches a named instance through the SQL Browser, without a port', () => {
      const o = options('mssql://app:pw@sql1/medios?instanceName=SQLEXPRESS');
      expect(o.port).toBeUndefined();
      expect(o.options.instanceName).toBe('SQLEXPRESS');
    });

    it('hands TypeORM an mssql driver that types an untyped Date parameter as datetime2, not datetime', () => {
      const driver = options('mssql://sa:pw@h/db').driver as { getTypeByValue(v: unknown): unknown; DateTime2: unknown; DateTime: unknown };
      expect(driver).toBe(mssqlDriver());
      expect(driver).toBe(createRequire(import.meta.url)('mssql'));
      expect(driver.getTypeByValue(new Date())).toBe(driver.DateTime2);
      expect(driver.getTypeByValue(new Date())).not.toBe(driver.DateTime);
    });
  });

  describe('errors', () => {
    const failed = (number: number) => new QueryFailedError('INSERT …', [], Object.assign(new Error('x'), { number }));

    it.each([2601, 2627])('treats error %i as a unique violation', (n) => {
      expect(dialect.isUniqueViolation(failed(n))).toBe(true);
    });

    it('does not treat a foreign-key or check violation (547) as a unique violation', () => {
      expect(dialect.isUniqueViolation(failed(547))).toBe(false);
      expect(dialect.isUniqueViolation(new Error('x'))).toBe(false);
    });

    it('treats socket and login failures as connection failures, a statement timeout not', () => {
      const err = (name: string, code: string) => Object.assign(new Error(code), { name, code });
      expect(dialect.isConnectionFailure(err('ConnectionError', 'ESOCKET'))).toBe(true);
      expect(dialect.isConnectionFailure(err('ConnectionError', 'ETIMEOUT'))).toBe(true);
      expect(dialect.isConnectionFailure(new QueryFailedError('SELECT 1', [], err('ConnectionError', 'ECONNCLOSED')))).toBe(true);
      expect(dialect.isConnectionFailure(err('RequestError', 'ETIMEOUT'))).toBe(false);
      expect(dialect.isConnectionFailure(err('RequestError', 'EREQUEST'))).toBe(false);
      // a runner TypeORM released when its connection was lost
      expect(dialect.isConnectionFailure(new QueryRunnerAlreadyReleasedError())).toBe(true);
    });

    it("treats the pool's timeout waiting for a connection as a connection failure (503), as pg-pool's is", async () => {
      // mssql's pool is tarn's; mssql prefixes the message of tarn's TimeoutError, which has no code
      const tarn = createRequire(createRequire(import.meta.url).resolve('mssql')).resolve('tarn');
      const { Pool, TimeoutError } = createRequire(import.meta.url)(tarn) as typeof import('tarn');
      const pool = new Pool({ create: () => new Promise<object>(() => {}), destroy: () => {}, min: 0, max: 1, acquireTimeoutMillis: 20 });
      const timeout = await pool.acquire().promise.then(
        () => undefined,
        (e: Error) => e,
      );
      await pool.destroy().catch(() => {});
      expect(timeout).toBeInstanceOf(TimeoutError);
      timeout!.message = `Failed to acquire a connection from the pool: ${timeout!.message}`;
      expect(dialect.isConnectionFailure(timeout)).toBe(true);
      expect(dialect.isConnectionFailure(new QueryFailedError('SELECT 1', [], timeout!))).toBe(true);
    });

    it.each([1205, 13535])('treats error %i (deadlock victim, temporal-table conflict) as a transient conflict (503)', (n) => {
      expect(dialect.isTransientConflict(failed(n))).toBe(true);
    });

    it('treats a statement past the request timeout (a RequestError ETIMEOUT) and a lock timeout (1222) as timed out (503), nothing else', () => {
      const err = (name: string, code: string) => Object.assign(new Error(code), { name, code });
      expect(dialect.isTimedOut(err('RequestError', 'ETIMEOUT'))).toBe(true);
      expect(dialect.isTimedOut(new QueryFailedError('SELECT 1', [], err('RequestError', 'ETIMEOUT')))).toBe(true);
      expect(dialect.isTimedOut(failed(1222))).toBe(true);
      expect(dialect.isTimedOut(err('ConnectionError', 'ETIMEOUT'))).toBe(false);
      expect(dialect.isTimedOut(failed(1205))).toBe(false);
      expect(dialect.isTimedOut(new Error('x'))).toBe(false);
    });

    it('does not treat other errors as transient conflicts', () => {
      expect(dialect.isTransientConflict(failed(547))).toBe(false);
      expect(dialect.isTransientConflict(failed(2627))).toBe(false);
      expect(dialect.isTransientConflict(new Error('x'))).toBe(false);
    });
  });

  describe('statements', () => {
    it('refuses a table that is not an event store before reaching the database', async () => {
      const { db, calls } = recorder();
      await expect(dialect.ensureMonthlyPartitions(db, 'users' as never, new Date(), new Date())).rejects.toThrow(/not an event store/);
      expect(calls).toHaveLength(0);
    });

    it('reads a versioned table as of an instant with FOR SYSTEM_TIME AS OF a datetime2(7) parameter, to its 100 ns', async () => {
      const { db, calls } = recorder(() => []);
      const at = '2026-01-02T03:04:05.678912345Z';
      await dialect.selectAsOf(db, 'roles', ['id', 'codigo'], { codigo: 'admin', id: 1 }, at);
      expect(flat(calls[0]!.sql)).toBe('SELECT [id], [codigo] FROM dbo.[roles] FOR SYSTEM_TIME AS OF @0 WHERE [codigo] = @1 AND [id] = @2');
      const instant = calls[0]!.parameters[0] as MssqlParameter & { value: Date & { nanosecondDelta?: number } };
      expect(instant.value.toISOString()).toBe('2026-01-02T03:04:05.678Z');
      expect(instant.value.nanosecondDelta).toBeCloseTo(0.0009123, 10);
      expect(calls[0]!.parameters.slice(1)).toEqual([new MssqlParameter('admin', 'nvarchar', 4000), new MssqlParameter(1, 'int')]);
      expect(datetime2('2026-01-02T03:04:05.678912345Z')).toEqual(instant);
    });

    it('refuses an as-of column name that is not a plain identifier', async () => {
      const { db } = recorder();
      await expect(dialect.selectAsOf(db, 'users', ['id; DROP TABLE users'], {}, '2026-01-01T00:00:00.000000000Z')).rejects.toThrow(/identifier/);
    });

    it('takes a transaction-owned application lock and fails the statement when it is not granted', async () => {
      const { db, calls } = recorder();
      await dialect.transactionLock(db, 'roles', 'shared');
      const s = flat(calls[0]!.sql);
      expect(s).toContain("EXEC @result = sp_getapplock @Resource = @0, @LockMode = @1, @LockOwner = 'Transaction'");
      expect(s).toContain('IF @result < 0 THROW');
      expect(calls[0]!.parameters).toEqual(['roles', 'Shared']);
    });

    it('never names the datetime type and sends every Date as a typed datetime2 or date parameter', async () => {
      const { db, calls } = recorder();
      const at = new Date('2026-01-01T00:00:00Z');
      await dialect.ensureMonthlyPartitions(db, 'audit_events', at, at);
      await dialect.selectAsOf(db, 'users', ['id'], {}, '2026-01-01T00:00:00.000000000Z');
      await dialect.versioningState(db, ['users']);
      await dialect.historyRetention(db, ['users']);
      await dialect.partitionRanges(db, 'audit_events');
      await dialect.dropPartitionsOlderThan(db, 'audit_events', at);
      await dialect.deleteRowsOlderThan(db, 'audit_events', at, 10);
      await dialect.transactionLock(db, 'x', 'exclusive');
      const page = dialect.auditEventsPage({
        from: '2026-01-01T00:00:00.000000000Z',
        to: '2026-02-01T00:00:00.000000000Z',
        after: { t: '2026-01-15T00:00:00.000000000Z', id: '1' },
        rows: 1,
      });
      calls.push({ sql: page.sql, parameters: page.parameters });
      expect(calls.length).toBeGreaterThanOrEqual(9);
      for (const { sql, parameters } of calls) {
        expect(sql).not.toMatch(/\bdatetime\b(?!2)/i);
        for (const p of parameters) {
          expect(p).not.toBeInstanceOf(Date);
          if (p instanceof MssqlParameter && p.value instanceof Date) expect(['datetime2', 'date']).toContain(p.type);
        }
      }
    });
  });
});

describe('MssqlDialect connection turns', () => {
  /** The tarn pool mssql lends through (its own copy, as mssql resolves it), with resources of no server. */
  function tarnPool(max: number) {
    const requireFromMssql = createRequire(createRequire(import.meta.url).resolve('mssql'));
    const { Pool } = requireFromMssql('tarn') as {
      Pool: new (options: object) => {
        acquire(): { promise: Promise<{ id: number }> };
        release(resource: object): boolean;
        destroy(): Promise<unknown>;
        numPendingAcquires(): number;
        pendingAcquires: unknown[];
      };
    };
    let made = 0;
    return new Pool({ create: async () => ({ id: ++made }), destroy: () => undefined, min: 0, max, propagateCreateError: true });
  }

  it("makes the tarn pool behind mssql lend its connections in turns by client: another client's acquisition waits for one of a burst, not all of it", async () => {
    const pool = tarnPool(1);
    let client: string = '';
    dialect.serveConnectionsInTurns({ driver: { master: { pool } } } as unknown as DataSource, () => client);
    try {
      const held = await pool.acquire().promise;
      const granted: string[] = [];
      const resources = new Map<string, object>();
      const acquire = (who: string, name: string) => {
        client = who;
        void pool.acquire().promise.then((resource) => {
          granted.push(name);
          resources.set(name, resource);
        });
      };
      for (const i of [1, 2, 3, 4]) acquire('a', `a${i}`);
      acquire('b', 'b1');
      expect(pool.numPendingAcquires()).toBe(5);
      // the one connection goes to each acquisition in turn, given back as soon as it is granted
      let lent: object = held;
      for (let i = 0; i < 5; i++) {
        pool.release(lent);
        while (granted.length <= i) await new Promise((resolve) => setImmediate(resolve));
        lent = resources.get(granted[i]!)!;
      }
      pool.release(lent);
      expect(granted).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
    } finally {
      await pool.destroy();
    }
  });

  it('refuses a pool whose line is not where mssql and tarn keep it', () => {
    expect(() => dialect.serveConnectionsInTurns({ driver: { master: { pool: {} } } } as unknown as DataSource, () => '')).toThrow(/pendingAcquires/);
  });
});
