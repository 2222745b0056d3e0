import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { PartitionManagerService } from '../../src/audit/maintenance/partition-manager.service.js';
import { RetentionService } from '../../src/audit/maintenance/retention.service.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { onlyOn } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { APP_ROLE, ReliabilityApp } from './support/reliability-app.js';

/**
 * The audit store is append-only for the service (migrations/postgres/1763712600000-append-only.ts):
 * the service's connections run as `medios_app`, which may INSERT and SELECT audit and security
 * events but not UPDATE, DELETE or TRUNCATE them — through the parent or a partition — nor drop a
 * partition or rewrite history; the retention job deletes only through definer-rights functions
 * that refuse a cutoff younger than the retention.
 */
const itPg = onlyOn('postgres', 'PostgreSQL roles, grants and SECURITY DEFINER functions; SQL Server: migrations/mssql/1763712600000-append-only.ts');

describe('append-only audit store: what the service role may and may not do', () => {
  let r: ReliabilityApp;
  const refused: Array<{ statement: string; error: string }> = [];
  const allowed: string[] = [];

  beforeAll(async () => {
    r = await ReliabilityApp.create();
    await r.t.post('/api/v1/admin/medios', { codigo: 'APPEND_ONLY', nombre: 'Deja un evento' }, { token: await r.t.adminToken() });
  });
  afterAll(async () => {
    if (refused.length) {
      recordFigures('append-only', `append-only: ${refused.length} statements refused to ${APP_ROLE}, ${allowed.length} allowed`, {
        role: APP_ROLE,
        refused,
        allowed,
      });
    }
    await r?.close();
  });

  /** Runs a statement on the service's own pool (as medios_app) and reports the SQLSTATE it failed with, or 'ok'. */
  const asService = async (sql: string, params: unknown[] = []): Promise<string> => {
    try {
      await r.t.db.query(sql, params);
      return 'ok';
    } catch (err) {
      return (err as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (err as { code?: string }).code ?? String(err);
    }
  };
  const partitionOf = async (table: string) =>
    (
      await r.ownerQuery<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1 LIMIT 1`,
        [table],
      )
    )[0]!.name;

  itPg('connects the service as the restricted role, while the login stays the owner', async () => {
    const [row] = await r.t.db.query('SELECT current_user AS role, session_user AS login');
    expect(row.role).toBe(APP_ROLE);
    expect(row.login).not.toBe(APP_ROLE);
  });

  itPg('warns at start of a login that may change the append-only tables, and not of the restricted role', async () => {
    const dialect = dialectFor(r.t.engine);
    expect(await dialect.prerequisiteProblems(r.t.db)).toEqual([]);
    const problems = await dialect.prerequisiteProblems(r.owner);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('may change or delete rows of audit_events, security_events, audit_seals, audit_verifications');
    expect(problems[0]).toContain('DATABASE_APP_ROLE=medios_app');
  });

  itPg('lets the service INSERT and SELECT audit and security events', async () => {
    for (const [statement, sql] of [
      [
        'INSERT INTO audit_events',
        `INSERT INTO audit_events (actor_user_id, action, target_type, target_id) VALUES (1, 'probe.append', 'probe', '1')`,
      ],
      ['INSERT INTO security_events', `INSERT INTO security_events (action, result) VALUES ('probe.append', 'success')`],
      ['SELECT FROM audit_events', 'SELECT count(*) FROM audit_events'],
      ['SELECT FROM security_events', 'SELECT count(*) FROM security_events'],
    ] as const) {
      expect({ statement, outcome: await asService(sql) }).toEqual({ statement, outcome: 'ok' });
      allowed.push(statement);
    }
  });

  itPg(
    'refuses UPDATE, DELETE and TRUNCATE of audit and security events to the service (insufficient_privilege), through the parent and on a partition',
    async () => {
      const statements: string[] = [];
      for (const table of ['audit_events', 'security_events', await partitionOf('audit_events'), await partitionOf('security_events')]) {
        statements.push(`UPDATE ${table} SET action = 'forged'`, `DELETE FROM ${table}`, `TRUNCATE ${table}`);
      }
      statements.push(
        `INSERT INTO ${await partitionOf('audit_events')} (actor_user_id, action, target_type, target_id, occurred_at) SELECT 1, 'x', 'x', 'x', occurred_at FROM audit_events LIMIT 1`,
      );
      for (const sql of statements) {
        const outcome = await asService(sql);
        expect({ sql, outcome }).toEqual({ sql, outcome: '42501' });
        refused.push({ statement: sql, error: '42501 insufficient_privilege' });
      }
      // the rows are all still there
      expect(Number((await r.ownerQuery(`SELECT count(*) AS n FROM audit_events WHERE action = 'forged'`))[0].n)).toBe(0);
      expect(Number((await r.ownerQuery('SELECT count(*) AS n FROM audit_events'))[0].n)).toBeGreaterThan(0);
    },
  );

  itPg('refuses the service any change of history, of the retention settings and of the schema', async () => {
    for (const sql of [
      `UPDATE users_history SET username = 'forged'`,
      'DELETE FROM roles_history',
      `UPDATE system_versioning SET retention = interval '1 day'`,
      `DROP TABLE ${await partitionOf('audit_events')}`,
      'ALTER TABLE audit_events DISABLE TRIGGER ALL',
      'INSERT INTO avisos (rubro_id) VALUES (1)',
    ]) {
      const outcome = await asService(sql);
      expect({ sql, outcome }).toEqual({ sql, outcome: '42501' });
      refused.push({ statement: sql, error: '42501 insufficient_privilege' });
    }
  });

  itPg('refuses a purge of events younger than their retention, even through the definer-rights functions', async () => {
    for (const sql of [
      `SELECT purge_events('audit_events', now(), 1000)`,
      `SELECT purge_events('security_events', now() - interval '4 years', 1000)`,
      `SELECT purge_event_partitions('audit_events', now() + interval '1 year')`,
      `SELECT purge_history('users', now(), 1000)`,
      `SELECT purge_events('users', now() - interval '20 years', 1000)`,
    ]) {
      const outcome = await asService(sql);
      expect({ sql, outcome }).toEqual({ sql, outcome: 'P0001' }); // raise_exception
      refused.push({ statement: sql, error: 'P0001 refused by the function' });
    }
  });

  itPg('runs the partition manager and the retention job as the service role: new partitions give it no rights, expired events go', async () => {
    const created = await r.t.app.get(PartitionManagerService).run();
    expect(created.status).toBe('ok');
    // an expired event in a past partition, made by the definer function as the service
    const oldMonth = new Date(Date.UTC(new Date().getUTCFullYear() - 11, 0, 1));
    expect(await asService(`SELECT ensure_monthly_partitions('audit_events', $1::date, $1::date)`, [oldMonth.toISOString().slice(0, 10)])).toBe('ok');
    const part = `audit_events_p${oldMonth.getUTCFullYear()}_01`;
    const grants = await r.ownerQuery(`SELECT privilege_type FROM information_schema.role_table_grants WHERE table_name = $1 AND grantee = $2`, [
      part,
      APP_ROLE,
    ]);
    expect(grants).toEqual([]);
    await r.ownerQuery(
      `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id) VALUES ($1, 1, 'probe.expired', 'probe', 'old')`,
      [new Date(oldMonth.getTime() + 86_400_000)],
    );

    const result = await r.t.app.get(RetentionService).run();
    expect(result.status).toBe('ok');
    expect((result.details as { audit_events: { droppedPartitions: string[] } }).audit_events.droppedPartitions).toContain(part);
    expect(await r.ownerQuery(`SELECT id FROM audit_events WHERE action = 'probe.expired'`)).toEqual([]);
    allowed.push('retention job (purge_event_partitions, purge_events, purge_history)', 'partition manager (ensure_monthly_partitions)');
  });
});
