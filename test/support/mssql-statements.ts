import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { MSSQL_MIGRATIONS } from '../../migrations/mssql/index.js';
import { MssqlDialect } from '../../src/database/dialects/mssql.dialect.js';
import { authorizationStatement } from '../../src/auth/effective-permissions.service.js';

/** One statement SQL Server would receive, and where it comes from. */
export interface SentStatement {
  /** `Migration.up`, `Migration.down` or `MssqlDialect.method` */
  source: string;
  sql: string;
}

function recorder(source: string, into: SentStatement[], answer: () => unknown[] = () => []) {
  return {
    query: async (sql: string) => {
      into.push({ source, sql });
      return answer();
    },
  };
}

/**
 * Every statement the SQL Server migrations (up and down) and the SQL Server dialect send,
 * captured without a server: each call runs against a recorder that answers empty results.
 * The dialect's methods are called once each with representative arguments (every optional
 * filter of the audit page set, so every branch of its WHERE is present).
 */
export async function captureMssqlStatements(migrations: ReadonlyArray<new () => MigrationInterface> = MSSQL_MIGRATIONS): Promise<SentStatement[]> {
  const out: SentStatement[] = [];
  for (const M of migrations) {
    const name = new M().name ?? M.name;
    await new M().up(recorder(`${name}.up`, out) as unknown as QueryRunner);
  }
  for (const M of [...migrations].reverse()) {
    const name = new M().name ?? M.name;
    await new M().down(recorder(`${name}.down`, out) as unknown as QueryRunner);
  }

  const d = new MssqlDialect();
  const at = new Date('2025-03-15T10:00:00Z');
  const db = (method: string, answer?: () => unknown[]) => recorder(`MssqlDialect.${method}`, out, answer) as unknown as DataSource;
  await d.ensureMonthlyPartitions(
    db('ensureMonthlyPartitions', () => [{ created: 0 }]),
    'audit_events',
    at,
    at,
  );
  await d.transactionLock(db('transactionLock') as never, 'resource', 'exclusive');
  await d.selectAsOf(db('selectAsOf'), 'roles', ['id', 'codigo'], { id: 1, codigo: 'admin' }, '2026-01-01T00:00:00.000000000Z');
  out.push({
    source: 'MssqlDialect.insertStatement',
    // TypeORM turns the :named parameters into @0, @1… before sending
    sql: d.insertStatement('audit_events', ['action', 'metadata'], ['id']).replace(/:(\w+)/g, '@$1'),
  });
  out.push({
    // the guard's per-request statement, with the dialect's JSON test, for a route needing two permissions
    source: 'MssqlDialect.jsonArrayContains',
    sql: authorizationStatement(d, 2).replace(/:(\w+)/g, '@$1'),
  });
  const page = d.auditEventsPage({
    actorUserId: 1,
    action: 'usuario.update',
    targetType: 'usuario',
    targetId: '1',
    from: '2025-01-01T00:00:00.000000000Z',
    to: '2025-12-31T00:00:00.000000000Z',
    after: { t: '2025-06-01T00:00:00.000000000Z', id: '10' },
    rows: 51,
  });
  out.push({ source: 'MssqlDialect.auditEventsPage', sql: page.sql });
  // the integrity code's reads of an event store: both selections, both column sets, both stores
  for (const store of ['audit_events', 'security_events'] as const) {
    for (const columns of ['seal', 'full'] as const) {
      for (const selection of [{ afterId: 0, upToId: 100 }, { ids: [1, 2, 3] }]) {
        out.push({ source: 'MssqlDialect.eventRows', sql: d.eventRows(store, selection, columns).sql });
      }
    }
    await d.eventIdHighWater(
      db('eventIdHighWater', () => [{ v: '0' }]),
      store,
    );
    await d.confirmAbsent(db('confirmAbsent'), store, [1, 2]);
  }
  await d.prerequisiteProblems(db('prerequisiteProblems'));
  await d.versioningState(db('versioningState'), ['users', 'roles']);
  await d.historyRetention(db('historyRetention'), ['users', 'roles']);
  await d.partitionRanges(db('partitionRanges'), 'audit_events');
  await d.replicaLagSeconds(db('replicaLagSeconds'));
  const runner = {
    ...recorder('MssqlDialect.tryJobLock', out, () => [{ result: -1 }]),
    connect: noop,
    startTransaction: noop,
    rollbackTransaction: noop,
    release: noop,
  };
  await d.tryJobLock({ createQueryRunner: () => runner } as unknown as DataSource, 'job');
  await d.dropPartitionsOlderThan(
    db('dropPartitionsOlderThan', () => [{ truncated: null }]),
    'audit_events',
    at,
  );
  await d.deleteRowsOlderThan(
    db('deleteRowsOlderThan', () => [{ deleted: 0 }]),
    'audit_events',
    at,
    1000,
  );
  await d.createDatabase(db('createDatabase'), 'medios_test');
  await d.dropDatabase(db('dropDatabase'), 'medios_test');
  return out;
}

const noop = async () => undefined;
