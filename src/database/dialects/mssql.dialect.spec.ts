import { describe, expect, it } from '@jest/globals';
import { type DataSource, MssqlParameter } from 'typeorm';
import { SqlServerDriver } from 'typeorm/driver/sqlserver/SqlServerDriver.js';
import { PreparedStatement, sqlServerParameter } from '../prepared-statement.js';
import { authorizationStatement } from '../../auth/effective-permissions.service.js';
import { MssqlDialect, mssqlDriver } from './mssql.dialect.js';
import { FULL_AUDIT_PAGE_QUERY } from './audit-page-query.fixture.js';

/**
 * SQL Server cannot run here: these tests pin the T-SQL the dialect sends and the type of every
 * parameter, which is what the engine would see.
 */
const dialect = new MssqlDialect();

interface Call {
  sql: string;
  parameters: unknown[];
}

/** A stand-in for a DataSource/EntityManager that records each query and answers from a script. */
function fakeDb(answers: unknown[][] = []) {
  const calls: Call[] = [];
  const db = {
    query: async (sql: string, parameters: unknown[] = []) => {
      calls.push({ sql, parameters });
      return answers.shift() ?? [];
    },
  };
  return { db: db as unknown as DataSource, calls };
}

/** A DataSource whose query runner records its life cycle. */
function fakeDataSource(lockResult: number) {
  const events: string[] = [];
  const calls: Call[] = [];
  const runner = {
    connect: async () => void events.push('connect'),
    startTransaction: async () => void events.push('begin'),
    rollbackTransaction: async () => void events.push('rollback'),
    commitTransaction: async () => void events.push('commit'),
    release: async () => void events.push('release'),
    query: async (sql: string, parameters: unknown[] = []) => {
      events.push('query');
      calls.push({ sql, parameters });
      return [{ result: lockResult }];
    },
  };
  return { dataSource: { createQueryRunner: () => runner } as unknown as DataSource, events, calls };
}

const typeOf = (p: unknown) => {
  expect(p).toBeInstanceOf(MssqlParameter);
  const m = p as MssqlParameter;
  return [m.type, ...m.params];
};

describe('MssqlDialect', () => {
  describe('audit events page', () => {
    it('writes the keyset position as an OR of typed datetime2 comparisons, with every filter typed', () => {
      const { sql, parameters } = dialect.auditEventsPage(FULL_AUDIT_PAGE_QUERY);
      expect(sql).toBe(`SELECT TOP (@7) CAST(e.id AS varchar(20)) AS id,
       CONCAT(REPLACE(CONVERT(varchar(27), e.occurred_at, 121), ' ', 'T'), 'Z') AS occurred_at,
       e.actor_user_id, u.username AS actor_username, e.actor_role_id, e.ip, e.user_agent,
       LOWER(CAST(e.correlation_id AS char(36))) AS correlation_id, e.action, e.target_type, e.target_id, e.metadata
FROM dbo.audit_events e
LEFT JOIN dbo.users u ON u.id = e.actor_user_id
WHERE e.actor_user_id = @0
  AND e.target_type = @1 AND e.target_type COLLATE Latin1_General_100_BIN2 = @1 AND DATALENGTH(e.target_type) = DATALENGTH(@1)
  AND e.target_id = @2 AND e.target_id COLLATE Latin1_General_100_BIN2 = @2 AND DATALENGTH(e.target_id) = DATALENGTH(@2)
  AND e.occurred_at >= @3
  AND e.occurred_at <= @4
  AND e.occurred_at <= @5
  AND (e.occurred_at < @5 OR (e.occurred_at = @5 AND e.id < @6))
ORDER BY e.occurred_at DESC, e.id DESC`);
      expect(parameters.map(typeOf)).toEqual([
        ['int'],
        ['nvarchar', 64],
        ['nvarchar', 128],
        ['datetime2', 7],
        ['datetime2', 7],
        ['datetime2', 7],
        ['bigint'],
        ['int'],
      ]);
      expect((parameters as MssqlParameter[]).map((p) => (p.value instanceof Date ? p.value.toISOString() : p.value))).toEqual([
        7,
        'usuario',
        '42',
        '2025-01-01T00:00:00.000Z',
        '2025-03-31T23:59:59.999Z',
        '2025-03-01T12:00:00.123Z',
        '1234',
        51,
      ]);
    });

    it('compares action, target type and target id exactly: beside the seek, a binary comparison and the lengths (trailing spaces)', () => {
      const { sql, parameters } = dialect.auditEventsPage({ action: 'usuario.update', rows: 2 });
      expect(sql).toContain(
        'WHERE e.action = @0 AND e.action COLLATE Latin1_General_100_BIN2 = @0 AND DATALENGTH(e.action) = DATALENGTH(@0)\nORDER BY',
      );
      expect(parameters.map(typeOf)).toEqual([['nvarchar', 64], ['int']]);
    });

    it('keeps the 100-ns digits of the cursor instant beyond the Date milliseconds', () => {
      const { parameters } = dialect.auditEventsPage({ after: { t: '2025-03-01T12:00:00.123456700Z', id: '9' }, rows: 2 });
      const t = (parameters[0] as MssqlParameter).value as Date & { nanosecondDelta?: number };
      expect(t.toISOString()).toBe('2025-03-01T12:00:00.123Z');
      expect(t.nanosecondDelta).toBeCloseTo(0.0004567, 10);
    });

    it('reads the first page without a WHERE clause', () => {
      const { sql, parameters } = dialect.auditEventsPage({ rows: 51 });
      expect(sql).toContain('SELECT TOP (@0) ');
      expect(sql).not.toContain('WHERE');
      expect(sql).toMatch(/ORDER BY e\.occurred_at DESC, e\.id DESC$/);
      expect(parameters.map(typeOf)).toEqual([['int']]);
    });
  });

  describe('job lock', () => {
    it('takes sp_getapplock without waiting, owned by a transaction of its own, and releases it by ending that transaction', async () => {
      const { dataSource, events, calls } = fakeDataSource(0);
      const lock = await dialect.tryJobLock(dataSource, 'maintenance:retention');
      expect(lock).not.toBeNull();
      expect(calls[0]!.sql).toBe(`DECLARE @result int;
EXEC @result = sp_getapplock @Resource = @0, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0;
SELECT @result AS result;`);
      expect(calls[0]!.parameters.map(typeOf)).toEqual([['nvarchar', 255]]);
      expect((calls[0]!.parameters[0] as MssqlParameter).value).toBe('job:maintenance:retention');
      expect(events).toEqual(['connect', 'begin', 'query']);
      await lock!.release();
      expect(events).toEqual(['connect', 'begin', 'query', 'rollback', 'release']);
    });

    it('reports a lock held elsewhere (negative result) as null and gives the connection back', async () => {
      const { dataSource, events } = fakeDataSource(-1);
      expect(await dialect.tryJobLock(dataSource, 'maintenance:retention')).toBeNull();
      expect(events).toEqual(['connect', 'begin', 'query', 'rollback', 'release']);
    });
  });

  describe('catalog checks', () => {
    it('reports READ_COMMITTED_SNAPSHOT off as a prerequisite problem, and nothing when it is on', async () => {
      const off = fakeDb([[{ rcsi: 0 }], []]);
      const problems = await dialect.prerequisiteProblems(off.db);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^READ_COMMITTED_SNAPSHOT is OFF/);
      expect(off.calls[0]!.sql).toContain('is_read_committed_snapshot_on');
      expect(off.calls[0]!.sql).toContain('WHERE database_id = DB_ID()');
      expect(await dialect.prerequisiteProblems(fakeDb([[{ rcsi: 1 }], []]).db)).toEqual([]);
    });

    it("reports a login that may UPDATE, DELETE or ALTER (so TRUNCATE) the append-only tables (db_owner skips the role's DENYs)", async () => {
      const owner = fakeDb([[{ rcsi: 1 }], [{ name: 'audit_events' }, { name: 'audit_seals' }]]);
      const problems = await dialect.prerequisiteProblems(owner.db);
      expect(problems).toEqual([expect.stringContaining('may change or delete rows of audit_events, audit_seals')]);
      expect(problems[0]).toContain('medios_app_role only, not of db_owner nor sysadmin');
      const check = owner.calls[1]!;
      expect(check.sql).toContain("HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'UPDATE') = 1");
      expect(check.sql).toContain("HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'DELETE') = 1");
      expect(check.sql).toContain("HAS_PERMS_BY_NAME(N'dbo.' + QUOTENAME(n.name), N'OBJECT', N'ALTER') = 1");
      expect(check.parameters.map((p) => (p as MssqlParameter).value)).toEqual([
        'audit_events',
        'security_events',
        'audit_seals',
        'audit_verifications',
      ]);
    });

    it('reads system versioning from sys.tables temporal_type and history_table_id', async () => {
      const { db, calls } = fakeDb([
        [
          { table_name: 'users', enabled: 1, history_table: 'users_history', history_exists: 1 },
          { table_name: 'roles', enabled: 0, history_table: null, history_exists: 0 },
        ],
      ]);
      expect(await dialect.versioningState(db, ['users', 'roles'])).toEqual([
        { table: 'users', enabled: true, historyTable: 'users_history', historyTableExists: true },
        { table: 'roles', enabled: false, historyTable: null, historyTableExists: false },
      ]);
      expect(calls[0]!.sql).toContain('CASE WHEN t.temporal_type = 2 THEN 1 ELSE 0 END AS enabled');
      expect(calls[0]!.sql).toContain('FROM (VALUES (1, @0), (2, @1)) AS n(ord, name)');
      expect(calls[0]!.sql).toContain('LEFT JOIN sys.tables h ON h.object_id = t.history_table_id');
      expect(calls[0]!.parameters.map(typeOf)).toEqual([
        ['nvarchar', 128],
        ['nvarchar', 128],
      ]);
    });

    it('reads the history retention period and unit, and whether the database enforces it', async () => {
      const { db, calls } = fakeDb([
        [
          { table_name: 'users', retention: '10 YEAR', years: 10, enforced: 1 },
          { table_name: 'roles', retention: '6 MONTH', years: null, enforced: 0 },
        ],
      ]);
      expect(await dialect.historyRetention(db, ['users', 'roles'])).toEqual([
        { table: 'users', retention: '10 YEAR', years: 10, enforced: true },
        { table: 'roles', retention: '6 MONTH', years: null, enforced: false },
      ]);
      expect(calls[0]!.sql).toContain('t.history_retention_period_unit = 6 THEN t.history_retention_period');
      expect(calls[0]!.sql).toContain('t.history_retention_period_unit = 5 AND t.history_retention_period % 12 = 0');
      expect(calls[0]!.sql).toContain('CAST(d.is_temporal_history_retention_enabled AS int) AS enforced');
      expect(calls[0]!.sql).toContain('WHERE d.database_id = DB_ID()');
    });

    it('reads partition boundaries from sys.partition_range_values and turns n boundaries into n + 1 ranges', async () => {
      const b = (iso: string) => new Date(iso);
      const { db, calls } = fakeDb([[{ boundary: b('2025-03-01T00:00:00Z') }, { boundary: b('2025-04-01T00:00:00Z') }]]);
      expect(await dialect.partitionRanges(db, 'audit_events')).toEqual([
        { name: 'audit_events partition 1', from: null, to: b('2025-03-01T00:00:00Z') },
        { name: 'audit_events partition 2', from: b('2025-03-01T00:00:00Z'), to: b('2025-04-01T00:00:00Z') },
        { name: 'audit_events partition 3', from: b('2025-04-01T00:00:00Z'), to: null },
      ]);
      expect(calls[0]!.sql).toContain('JOIN sys.partition_range_values prv ON prv.function_id = ps.function_id');
      expect(calls[0]!.sql).toContain('WHERE i.object_id = OBJECT_ID(@0) AND i.index_id IN (0, 1)');
      expect(calls[0]!.parameters.map(typeOf)).toEqual([['nvarchar', 256]]);
      expect((calls[0]!.parameters[0] as MssqlParameter).value).toBe('dbo.audit_events');
    });
  });

  describe('maintenance', () => {
    it('has dbo.ensure_monthly_partitions split the missing monthly boundaries, with the first days of both months as dates', async () => {
      // The SPLIT / NEXT USED loop lives in the procedure (migrations/mssql/1763712000000-platform.ts,
      // pinned by test/database/mssql-migrations.spec.ts), the one implementation the migration,
      // the job and an operator share.
      const { db, calls } = fakeDb([[{ created: 2 }]]);
      expect(await dialect.ensureMonthlyPartitions(db, 'security_events', new Date('2025-03-15T10:00:00Z'), new Date('2025-06-30T00:00:00Z'))).toBe(
        2,
      );
      const { sql, parameters } = calls[0]!;
      expect(sql).toBe('EXEC dbo.ensure_monthly_partitions @0, @1, @2');
      expect(parameters.map(typeOf)).toEqual([['nvarchar', 128], ['date'], ['date']]);
      expect((parameters as MssqlParameter[]).map((p) => (p.value instanceof Date ? p.value.toISOString() : p.value))).toEqual([
        'security_events',
        '2025-03-01T00:00:00.000Z',
        '2025-06-01T00:00:00.000Z',
      ]);
    });

    it('runs the partition maintenance with its own, longer request timeout than the service’s 15 s, so a SPLIT that moves rows is not cancelled', async () => {
      const requests: Array<{ overrides: unknown; inputs: unknown[][]; sql?: string }> = [];
      const pool = {
        request: (overrides: unknown) => {
          const r: { overrides: unknown; inputs: unknown[][]; sql?: string } = { overrides, inputs: [] };
          requests.push(r);
          return {
            input: (name: string, type: unknown, value: unknown) => void r.inputs.push([name, type, value]),
            query: async (sql: string) => {
              r.sql = sql;
              return { recordset: [{ created: 3 }] };
            },
          };
        },
      };
      const { db, calls } = fakeDb();
      const dataSource = Object.assign(db, { driver: { master: pool } }) as unknown as DataSource;
      const mssql = mssqlDriver() as unknown as { NVarChar(n: number): unknown; Date: unknown };
      expect(
        await dialect.ensureMonthlyPartitions(
          dataSource,
          'audit_events',
          new Date('2025-03-15T10:00:00Z'),
          new Date('2025-06-30T00:00:00Z'),
          1_800_000,
        ),
      ).toBe(3);
      expect(calls).toEqual([]);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.overrides).toEqual({ requestTimeout: 1_800_000 });
      expect(requests[0]!.sql).toBe('EXEC dbo.ensure_monthly_partitions @0, @1, @2');
      expect(requests[0]!.inputs.map(([name, , value]) => [name, value instanceof Date ? value.toISOString() : value])).toEqual([
        ['0', 'audit_events'],
        ['1', '2025-03-01T00:00:00.000Z'],
        ['2', '2025-06-01T00:00:00.000Z'],
      ]);
      // typed as the procedure declares them: sysname (nvarchar(128)) and date, never datetime
      expect(requests[0]!.inputs[0]![1]).toEqual(mssql.NVarChar(128));
      expect(requests[0]!.inputs[1]![1]).toBe(mssql.Date);
      expect(requests[0]!.inputs[2]![1]).toBe(mssql.Date);
    });

    it('keeps the lock wait of the maintenance procedure (60 s) below the maintenance timeout the configuration allows (2 min at least)', async () => {
      const { loadAppConfig } = await import('../../common/config/index.js');
      const base = { NODE_ENV: 'test' };
      expect(loadAppConfig(base).db.maintenanceTimeoutMs).toBe(1_800_000);
      expect(() => loadAppConfig({ ...base, DB_MAINTENANCE_TIMEOUT_MS: '60000' })).toThrow(
        /DB_MAINTENANCE_TIMEOUT_MS must be an integer number of milliseconds from 120000/,
      );
      expect(loadAppConfig({ ...base, DB_MAINTENANCE_TIMEOUT_MS: '120000' }).db.maintenanceTimeoutMs).toBe(120_000);
    });

    it('empties the expired partitions through dbo.purge_event_partitions (owner rights; TRUNCATE … WITH (PARTITIONS …))', async () => {
      // the procedure's T-SQL is pinned by test/database/mssql-migrations.spec.ts
      const { db, calls } = fakeDb([[{ truncated: '1,2' }]]);
      expect(await dialect.dropPartitionsOlderThan(db, 'audit_events', new Date('2015-03-15T00:00:00Z'))).toEqual([
        'audit_events partition 1',
        'audit_events partition 2',
      ]);
      expect(calls[0]!.sql).toBe('EXEC dbo.purge_event_partitions @0, @1');
      expect(calls[0]!.parameters.map(typeOf)).toEqual([
        ['nvarchar', 128],
        ['datetime2', 7],
      ]);
      expect((calls[0]!.parameters[0] as MssqlParameter).value).toBe('audit_events');
    });

    it('deletes expired rows in chunks through dbo.purge_events with a datetime2 cutoff', async () => {
      const { db, calls } = fakeDb([[{ deleted: 5000 }]]);
      expect(await dialect.deleteRowsOlderThan(db, 'security_events', new Date('2020-01-01T00:00:00Z'), 5000)).toBe(5000);
      expect(calls[0]!.sql).toBe('EXEC dbo.purge_events @0, @1, @2');
      expect(calls[0]!.parameters.map(typeOf)).toEqual([['nvarchar', 128], ['datetime2', 7], ['int']]);
      expect((calls[0]!.parameters as MssqlParameter[]).map((p) => (p.value instanceof Date ? p.value.toISOString() : p.value))).toEqual([
        'security_events',
        '2020-01-01T00:00:00.000Z',
        5000,
      ]);
    });

    it('leaves history retention to the engine (HISTORY_RETENTION_PERIOD)', async () => {
      expect(await dialect.deleteHistoryOlderThan()).toBeNull();
    });

    it('never interpolates a table name that is not an event store', async () => {
      const { db } = fakeDb();
      await expect(dialect.deleteRowsOlderThan(db, 'users; DROP TABLE x' as never, new Date(), 1)).rejects.toThrow(/not an event store/);
    });
  });

  describe('insertStatement', () => {
    it('answers the new row with OUTPUT INSERTED before VALUES, and nothing without returning columns', () => {
      expect(dialect.insertStatement('medios', ['codigo', 'nombre'], ['id', 'codigo'])).toBe(
        'INSERT INTO medios (codigo, nombre) OUTPUT INSERTED.id, INSERTED.codigo VALUES (:codigo, :nombre)',
      );
      expect(dialect.insertStatement('audit_events', ['action', 'metadata'])).toBe(
        'INSERT INTO audit_events (action, metadata) VALUES (:action, :metadata)',
      );
      expect(() => dialect.insertStatement('medios', ['codigo'], ['INSERTED.id'])).toThrow('not a plain SQL identifier');
    });

    it("becomes @n placeholders through TypeORM's SQL Server driver, values in their order", async () => {
      const calls: Call[] = [];
      const driver = Object.assign(Object.create(SqlServerDriver.prototype) as SqlServerDriver, {
        parametersPrefix: '@',
        options: { type: 'mssql' },
      });
      const manager = { connection: { driver }, query: async (sql: string, parameters: unknown[]) => (calls.push({ sql, parameters }), [{ id: 1 }]) };
      const stmt = new PreparedStatement(dialect.insertStatement('medios', ['codigo', 'nombre'], ['id']));
      expect(await stmt.one(manager as never, { nombre: 'Uno', codigo: 'UNO' })).toEqual({ id: 1 });
      await stmt.run(manager as never, { codigo: 'DOS', nombre: 'Dos' });
      expect(calls).toEqual([
        { sql: 'INSERT INTO medios (codigo, nombre) OUTPUT INSERTED.id VALUES (@0, @1)', parameters: ['UNO', 'Uno'].map(sqlServerParameter) },
        { sql: 'INSERT INTO medios (codigo, nombre) OUTPUT INSERTED.id VALUES (@0, @1)', parameters: ['DOS', 'Dos'].map(sqlServerParameter) },
      ]);
    });
  });

  describe('jsonArrayContains', () => {
    it('reads the array under the key with OPENJSON and compares each value with the parameter', () => {
      expect(dialect.jsonArrayContains('u.permission_overrides', 'granted', ':p1')).toBe(
        "EXISTS (SELECT 1 FROM OPENJSON(u.permission_overrides, '$.granted') j WHERE j.[value] = :p1)",
      );
      expect(() => dialect.jsonArrayContains('u.permission_overrides', 'granted', 'p1')).toThrow('not a :named parameter');
    });
  });

  describe("the guard's statement", () => {
    it("becomes @n placeholders through TypeORM's SQL Server driver, a repeated name bound once", async () => {
      const calls: Call[] = [];
      const driver = Object.assign(Object.create(SqlServerDriver.prototype) as SqlServerDriver, {
        parametersPrefix: '@',
        options: { type: 'mssql' },
      });
      const manager = { connection: { driver }, query: async (sql: string, parameters: unknown[]) => (calls.push({ sql, parameters }), []) };
      const now = new Date('2026-01-02T03:04:05.000Z');
      const sid = '0f8fad5b-d9cb-469f-a165-70867728950e';
      await new PreparedStatement(authorizationStatement(dialect, 1)).run(manager as never, {
        active: true,
        userId: 7,
        sessionId: sid,
        now,
        p0: 'a:b:c',
      });
      const [call] = calls;
      expect(call?.sql).toContain("OPENJSON(u.permission_overrides, '$.denied') j WHERE j.[value] = @2)");
      expect(call?.sql).not.toMatch(/:[a-z]/i);
      expect(call?.parameters).toEqual([sid, now, 'a:b:c', true, 7].map(sqlServerParameter));
    });
  });
});

describe('MssqlDialect read replica', () => {
  const settings = {
    url: 'mssql://u:p@ag-listener:1433/medios',
    poolSize: 5,
    statementTimeoutMs: 1000,
    connectTimeoutMs: 1000,
    applicationName: 'x',
  };

  it('connects a replica pool with ApplicationIntent=ReadOnly (readOnlyIntent), the primary pool without it', () => {
    const replica = dialect.dataSourceOptions({ ...settings, readOnly: true }) as unknown as { options: Record<string, unknown> };
    const primary = dialect.dataSourceOptions(settings) as unknown as { options: Record<string, unknown> };
    expect(replica.options.readOnlyIntent).toBe(true);
    expect(primary.options.readOnlyIntent).toBeUndefined();
  });

  it('reads the lag from the local row of sys.dm_hadr_database_replica_states: 0 when caught up or primary, unknown when suspended', async () => {
    const lag = async (row: Record<string, unknown> | undefined) => {
      const { db, calls } = fakeDb([row ? [row] : []]);
      const value = await dialect.replicaLagSeconds(db);
      expect(calls[0]!.sql).toMatch(/sys\.dm_hadr_database_replica_states[\s\S]*DB_ID\(\)[\s\S]*is_local = 1/);
      return value;
    };
    expect(await lag(undefined)).toBe(0); // not in an availability group: not a replica
    expect(await lag({ is_primary_replica: true, state: 'SYNCHRONIZED', redo_queue_size: 10, lag_ms: 9000 })).toBe(0);
    // bigint columns arrive as the driver returns them: strings
    expect(await lag({ is_primary_replica: false, state: 'SYNCHRONIZED', redo_queue_size: '0', lag_ms: '600000' })).toBe(0);
    expect(await lag({ is_primary_replica: false, state: 'SYNCHRONIZED', redo_queue_size: null, lag_ms: '600000' })).toBe(0);
    expect(await lag({ is_primary_replica: false, state: 'SYNCHRONIZING', redo_queue_size: '2048', lag_ms: '4500' })).toBe(4.5);
    expect(await lag({ is_primary_replica: false, state: 'NOT SYNCHRONIZING', redo_queue_size: 2048, lag_ms: 4500 })).toBeNull();
  });
});
