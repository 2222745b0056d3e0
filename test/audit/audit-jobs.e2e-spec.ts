import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { CronJob } from 'cron';
import { IntegrityCheckJob } from '../../src/audit/jobs/integrity-check.job.js';
import { PartitionManagerJob } from '../../src/audit/jobs/partition-manager.job.js';
import { RetentionJob } from '../../src/audit/jobs/retention.job.js';
import { IntegrityCheckService } from '../../src/audit/maintenance/integrity-check.service.js';
import { type JobResult, MaintenanceJobRunner } from '../../src/audit/maintenance/maintenance-job.runner.js';
import { PartitionManagerService } from '../../src/audit/maintenance/partition-manager.service.js';
import { RetentionService } from '../../src/audit/maintenance/retention.service.js';
import { monthLabel, monthStart, yearsBefore } from '../../src/audit/maintenance/storage-policy.js';
import { FixedClock } from '../../src/common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../src/database/dialects/index.js';
import { AppMetrics } from '../../src/observability/metrics.js';
import { TestApp } from '../support/test-app.js';
import { insertEvent, seedEvents } from './audit-test-data.js';
import { dropMonthPartition, partitionNames, setVersioning } from './storage-helpers.js';

/** The middle of the current UTC month: cutoffs fall mid-month, partitions exist around it. */
const now = new Date();
const NOW = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 15, 12, 0, 0));

describe('scheduled maintenance jobs', () => {
  let t: TestApp;
  let dialect: SqlDialect;
  const partitionManager = () => t.app.get(PartitionManagerService).run();
  const retention = () => t.app.get(RetentionService).run();
  const integrity = () => t.app.get(IntegrityCheckService).run();

  beforeAll(async () => {
    t = await TestApp.create({ clock: new FixedClock(NOW) });
    dialect = t.app.get<SqlDialect>(SQL_DIALECT);
  });
  afterAll(() => t.close());

  const count = async (sql: string, params: unknown[] = []) => Number((await t.query(sql, params))[0].n);

  describe('scheduling', () => {
    it('registers no cron job in the test environment (NODE_ENV=test)', () => {
      expect(t.config.jobsEnabled).toBe(false);
      let registry: SchedulerRegistry | undefined;
      try {
        registry = t.app.get(SchedulerRegistry, { strict: false });
      } catch {
        registry = undefined; // the scheduler is not even loaded
      }
      expect(registry?.getCronJobs().size ?? 0).toBe(0);
      for (const job of [PartitionManagerJob, RetentionJob, IntegrityCheckJob]) expect(() => t.app.get(job, { strict: false })).toThrow();
    });
  });

  describe('partition manager', () => {
    it('creates the missing monthly partitions of both stores through the third month ahead', async () => {
      const lost = new Set([
        ...(await dropMonthPartition(t, 'audit_events', monthStart(NOW, 3))),
        ...(await dropMonthPartition(t, 'security_events', monthStart(NOW, 2))),
      ]);
      const result = await partitionManager();
      expect(result).toMatchObject({
        job: 'partition-manager',
        status: 'ok',
        details: { from: monthLabel(NOW), through: monthLabel(monthStart(NOW, 3)) },
      });
      const created = result.details!.created as Record<string, number>;
      expect(created.audit_events! + created.security_events!).toBeGreaterThanOrEqual(lost.size);
      const health = (await t.get('/health/audit')).body;
      expect(health.details.partitions_audit_events.status).toBe('up');
      expect(health.details.partitions_security_events.status).toBe('up');
      for (const store of ['audit_events', 'security_events'] as const) {
        const ranges = await dialect.partitionRanges(t.db, store);
        for (let i = 0; i <= 3; i++) {
          const m = monthStart(NOW, i);
          expect(ranges.some((r) => r.from?.getTime() === m.getTime() && r.to?.getTime() === monthStart(NOW, i + 1).getTime())).toBe(true);
        }
      }
    });

    it('is idempotent: a second run creates nothing and leaves the same partitions', async () => {
      await partitionManager();
      const before = { a: await partitionNames(t, 'audit_events'), s: await partitionNames(t, 'security_events') };
      const again = await partitionManager();
      expect(again.status).toBe('ok');
      expect(again.details!.created).toEqual({ audit_events: 0, security_events: 0 });
      expect({ a: await partitionNames(t, 'audit_events'), s: await partitionNames(t, 'security_events') }).toEqual(before);
    });
    it("reports alert, naming the month, while a table detached by hand keeps that month's partition name", async () => {
      // a detached partition is a PostgreSQL table that keeps its name; SQL Server's partitions have no name to keep
      if (t.engine !== 'postgres') return;
      const month = monthStart(NOW, 2);
      const name = `audit_events_p${monthLabel(month).replace('-', '_')}`;
      await partitionManager();
      await t.query(`ALTER TABLE audit_events DETACH PARTITION ${name}`);
      try {
        const alert = await partitionManager();
        expect(alert).toMatchObject({
          status: 'alert',
          details: { created: { audit_events: 0, security_events: 0 }, uncovered: { audit_events: [monthLabel(month)] } },
        });
        expect(alert.details!.uncovered).not.toHaveProperty('security_events');
        // once the detached table has another name, the next run repairs the month
        await t.query(`ALTER TABLE ${name} RENAME TO ${name}_archived`);
        const repaired = await partitionManager();
        expect(repaired).toMatchObject({ status: 'ok', details: { created: { audit_events: 1, security_events: 0 } } });
        expect(repaired.details).not.toHaveProperty('uncovered');
      } finally {
        await t.query(`DROP TABLE IF EXISTS ${name}_archived`);
      }
    });
  });

  describe('job lock', () => {
    it('reports busy and does nothing while another instance holds the job lock, and runs once it is free', async () => {
      const month = monthStart(NOW, 3);
      await dropMonthPartition(t, 'audit_events', month);
      const held = await dialect.tryJobLock(t.db, 'maintenance:partition-manager');
      expect(held).not.toBeNull();
      let busy: JobResult;
      try {
        busy = await partitionManager();
      } finally {
        await held!.release();
      }
      expect(busy).toMatchObject({ job: 'partition-manager', status: 'busy' });
      expect(busy.details).toBeUndefined();
      expect((await dialect.partitionRanges(t.db, 'audit_events')).some((r) => r.from?.getTime() === month.getTime() && r.to !== null)).toBe(false);
      const ran = await partitionManager();
      expect(ran.status).toBe('ok');
      expect((ran.details!.created as Record<string, number>).audit_events).toBeGreaterThanOrEqual(1);
    });

    it('lets exactly one of two concurrent runs do the work; the other reports busy', async () => {
      await dropMonthPartition(t, 'audit_events', monthStart(NOW, 3));
      // Hold the first run inside its work: a lock on audit_events that creating a partition must wait for.
      const blocker = t.db.createQueryRunner();
      await blocker.connect();
      await blocker.startTransaction();
      try {
        await blocker.query(
          t.engine === 'postgres' ? 'LOCK TABLE audit_events IN SHARE MODE' : 'SELECT TOP (0) id FROM dbo.audit_events WITH (TABLOCKX, HOLDLOCK)',
        );
        let firstDone = false;
        const first = partitionManager().finally(() => {
          firstDone = true;
        });
        // wait (without sleeping) until the first run holds its job lock
        for (let i = 0; !(await jobLockHeld()) && !firstDone; i++) {
          if (i > 5000) throw new Error('the first run never took the job lock');
          await new Promise((resolve) => setImmediate(resolve));
        }
        expect(firstDone).toBe(false);
        const second = await partitionManager();
        expect(second.status).toBe('busy');
        await blocker.commitTransaction();
        const done = await first;
        expect(done.status).toBe('ok');
        expect((done.details!.created as Record<string, number>).audit_events).toBeGreaterThanOrEqual(1);
      } finally {
        if (blocker.isTransactionActive) await blocker.rollbackTransaction();
        await blocker.release();
      }
    });

    async function jobLockHeld(): Promise<boolean> {
      const sql =
        t.engine === 'postgres'
          ? `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()`
          : `SELECT count(*) AS n FROM sys.dm_tran_locks WHERE resource_type = 'APPLICATION' AND resource_database_id = DB_ID() AND request_status = 'GRANT'`;
      return (await count(sql)) > 0;
    }
  });

  describe('retention enforcer', () => {
    const auditCutoff = yearsBefore(NOW, 10);
    const securityCutoff = yearsBefore(NOW, 5);
    const hours = (h: number) => h * 3_600_000;
    const at = (d: Date, deltaMs: number) => new Date(d.getTime() + deltaMs).toISOString();
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      // past partitions first: two whole months before the audit cutoff's month, one before the security cutoff's
      await dialect.ensureMonthlyPartitions(t.db, 'audit_events', monthStart(auditCutoff, -2), monthStart(auditCutoff));
      await dialect.ensureMonthlyPartitions(t.db, 'security_events', monthStart(securityCutoff, -1), monthStart(securityCutoff));
      ids.auditOldest = await insertEvent(t, { occurredAt: at(monthStart(auditCutoff, -2), hours(72)), actorUserId: 1, targetType: 'ret' });
      ids.auditOld = await insertEvent(t, { occurredAt: at(monthStart(auditCutoff, -1), hours(24)), actorUserId: 1, targetType: 'ret' });
      ids.auditJustExpired = await insertEvent(t, { occurredAt: at(auditCutoff, -hours(1)), actorUserId: 1, targetType: 'ret' });
      ids.auditJustKept = await insertEvent(t, { occurredAt: at(auditCutoff, hours(1)), actorUserId: 1, targetType: 'ret' });
      ids.auditRecent = await insertEvent(t, { occurredAt: at(NOW, -hours(1)), actorUserId: 1, targetType: 'ret' });
      // 12,000 expired rows in the cutoff's own month: deleted in chunks
      await seedEvents(t, {
        count: 12_000,
        newest: at(auditCutoff, -hours(24)),
        sharePerSecond: 100,
        actors: [1],
        targetTypes: ['ret_bulk'],
        targetIds: 10,
      });
      for (const [name, occurredAt] of [
        ['secOld', at(monthStart(securityCutoff, -1), hours(24))],
        ['secJustExpired', at(securityCutoff, -hours(1))],
        ['secJustKept', at(securityCutoff, hours(1))],
      ] as const) {
        const insert =
          t.engine === 'postgres'
            ? `INSERT INTO security_events (occurred_at, action, result, attempted_username) VALUES ($1::timestamptz, 'login', 'failure', $2) RETURNING id`
            : `INSERT INTO security_events (occurred_at, action, result, attempted_username) OUTPUT INSERTED.id VALUES (CAST($1 AS datetime2(7)), 'login', 'failure', $2)`;
        ids[name] = Number((await t.query(insert, [t.engine === 'postgres' ? occurredAt : occurredAt.replace('Z', ''), name]))[0].id);
      }
      if (t.engine === 'postgres') {
        // history versions of the admin user: one that ended before the 10-year cutoff, one after it
        for (const [from, to] of [
          [at(auditCutoff, -hours(24 * 400)), at(auditCutoff, -hours(24))],
          [at(auditCutoff, -hours(24 * 30)), at(auditCutoff, hours(24))],
        ]) {
          await t.query(
            `INSERT INTO users_history
             SELECT (jsonb_populate_record(NULL::users_history, to_jsonb(u) || jsonb_build_object('sys_period', tstzrange($1::timestamptz, $2::timestamptz)::text))).*
               FROM users u WHERE u.id = 1`,
            [from, to],
          );
        }
      }
    });

    const has = async (table: string, id: number) => (await count(`SELECT count(*) AS n FROM ${table} WHERE id = $1`, [id])) === 1;

    it('deletes audit rows older than 10 years and security rows older than 5, dropping wholly expired partitions and deleting the rest in chunks', async () => {
      const result = await retention();
      expect(result.status).toBe('ok');
      const details = result.details as Record<string, { cutoff: string; droppedPartitions: string[]; deletedRows: number }>;
      expect(details.audit_events).toMatchObject({ cutoff: auditCutoff.toISOString(), deletedRows: 12_001 });
      expect(details.security_events).toMatchObject({ cutoff: securityCutoff.toISOString(), deletedRows: 1 });
      expect(details.audit_events!.droppedPartitions).toHaveLength(2);
      expect(details.security_events!.droppedPartitions).toHaveLength(1);
      if (t.engine === 'postgres') {
        const name = (store: string, m: Date) => `${store}_p${monthLabel(m).replace('-', '_')}`;
        expect(details.audit_events!.droppedPartitions.sort()).toEqual([
          name('audit_events', monthStart(auditCutoff, -2)),
          name('audit_events', monthStart(auditCutoff, -1)),
        ]);
        expect(details.security_events!.droppedPartitions).toEqual([name('security_events', monthStart(securityCutoff, -1))]);
      }
      for (const gone of ['auditOldest', 'auditOld', 'auditJustExpired']) expect(await has('audit_events', ids[gone]!)).toBe(false);
      for (const kept of ['auditJustKept', 'auditRecent']) expect(await has('audit_events', ids[kept]!)).toBe(true);
      expect(await count(`SELECT count(*) AS n FROM audit_events WHERE target_type = 'ret_bulk'`)).toBe(0);
      for (const gone of ['secOld', 'secJustExpired']) expect(await has('security_events', ids[gone]!)).toBe(false);
      expect(await has('security_events', ids.secJustKept!)).toBe(true);
      const history = (result.details as { history: { deletedRows: Record<string, number | string> } }).history;
      if (t.engine === 'postgres') expect(history.deletedRows).toEqual({ users: 1, roles: 0, permissions: 0, role_permissions: 0 });
    });

    it('deletes history versions that ended more than 10 years ago (PostgreSQL; SQL Server does it natively)', async () => {
      // the first run (previous test) already did it; this run finds nothing left to delete
      const history = ((await retention()).details as { history: { cutoff: string; deletedRows: Record<string, number | string> } }).history;
      expect(history.cutoff).toBe(auditCutoff.toISOString());
      if (t.engine === 'postgres') {
        expect(history.deletedRows).toEqual({ users: 0, roles: 0, permissions: 0, role_permissions: 0 });
        const remaining = await t.query(
          `SELECT upper(sys_period) AS ended FROM users_history WHERE id = 1 AND upper(sys_period) < $1::timestamptz ORDER BY 1`,
          [at(auditCutoff, hours(48))],
        );
        expect(remaining.map((r) => new Date(r.ended).toISOString())).toEqual([at(auditCutoff, hours(24))]);
      } else {
        expect(history.deletedRows).toEqual({ users: 'native', roles: 'native', permissions: 'native', role_permissions: 'native' });
      }
    });

    it('is idempotent: a second run drops and deletes nothing and leaves the same rows and partitions', async () => {
      const snapshot = async () => ({
        audit: await count('SELECT count(*) AS n FROM audit_events'),
        security: await count('SELECT count(*) AS n FROM security_events'),
        history: t.engine === 'postgres' ? await count('SELECT count(*) AS n FROM users_history') : 0,
        partitions: [await partitionNames(t, 'audit_events'), await partitionNames(t, 'security_events')],
      });
      const before = await snapshot();
      const again = await retention();
      expect(again.status).toBe('ok');
      expect(again.details).toMatchObject({
        audit_events: { droppedPartitions: [], deletedRows: 0 },
        security_events: { droppedPartitions: [], deletedRows: 0 },
      });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('integrity check', () => {
    const alerts = () => t.securityEvents('system.integrity_alert');

    it('reports ok and writes no alert while versioning and partitions are in place, run after run', async () => {
      await partitionManager();
      const first = await integrity();
      const second = await integrity();
      for (const result of [first, second]) {
        expect(result).toMatchObject({ job: 'integrity-check', status: 'ok', details: { healthy: true } });
        expect(Object.keys(result.details!.checks as object).sort()).toEqual([
          'partitions_audit_events',
          'partitions_security_events',
          'retention',
          'seals',
          'versioning',
        ]);
      }
      expect(await alerts()).toHaveLength(0);
    });

    it('writes system.integrity_alert (failure) naming what failed when versioning is off and a partition is missing', async () => {
      const month = monthStart(NOW, 2);
      await dropMonthPartition(t, 'security_events', month);
      await setVersioning(t, 'role_permissions', false);
      let result: JobResult;
      try {
        result = await integrity();
      } finally {
        await setVersioning(t, 'role_permissions', true);
        await partitionManager();
      }
      expect(result).toMatchObject({ status: 'alert', details: { healthy: false } });
      const [alert, ...more] = await alerts();
      expect(more).toHaveLength(0);
      expect(alert).toMatchObject({ action: 'system.integrity_alert', result: 'failure', actor_user_id: null });
      expect(alert.metadata.failed.versioning.failing).toEqual([{ table: 'role_permissions', problem: 'system versioning is off' }]);
      expect(alert.metadata.failed.partitions_security_events).toMatchObject({ table: 'security_events', missing: [monthLabel(month)] });
      expect(alert.metadata.failed.retention).toBeUndefined();
      // repaired: the next run is clean again and adds no alert
      expect((await integrity()).status).toBe('ok');
      expect(await alerts()).toHaveLength(1);
    });
  });
});

describe('scheduled maintenance jobs with JOBS_ENABLED', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create({ env: { NODE_ENV: 'development', JOBS_ENABLED: 'true', METRICS_PORT: '0' } })));
  afterAll(() => t.close());

  it('registers the three seed schedules, translated to six-field cron, in UTC', () => {
    const jobs = t.app.get(SchedulerRegistry).getCronJobs() as Map<string, CronJob>;
    const schedule = Object.fromEntries(
      [...jobs].map(([name, job]) => [name, { source: job.cronTime.source, timeZone: job.cronTime.timeZone, active: job.isActive }]),
    );
    expect(schedule).toEqual({
      'audit.partition-manager': { source: '0 0 2 1 * *', timeZone: 'UTC', active: true },
      'audit.retention': { source: '0 0 3 1 1 *', timeZone: 'UTC', active: true },
      'audit.integrity-check': { source: '0 0 1 * * 0', timeZone: 'UTC', active: true },
    });
  });
});

describe('the job lock and the requests’ pool', () => {
  let t: TestApp, admin: string;
  // one pooled connection: a lock held on it would leave none for the job's own work or for requests
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin({ env: { DB_POOL_SIZE: '1' } })));
  afterAll(() => t.close());

  it('holds the lock on a connection of its own: with a pool of one, the job runs and requests are served during its hold', async () => {
    const running = t.app.get(PartitionManagerService).run({ scheduled: true, lockHoldMs: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.get('/api/v1/permisos', { token: admin })).status).toBe(200);
    // before, its own work waited for the one connection the lock held, and failed
    expect((await running).status).toBe('ok');
  });

  it('counts a scheduled run as soon as its work ends; only its lock waits out the hold', async () => {
    const before =
      (await t.app.get(AppMetrics).jobRuns.get()).values.find((v) => v.labels.job === 'integrity-check' && v.labels.result === 'ok')?.value ?? 0;
    const result = await t.app.get(IntegrityCheckService).run({ scheduled: true, lockHoldMs: 10_000 });
    expect(result.status).toBe('ok');
    const after =
      (await t.app.get(AppMetrics).jobRuns.get()).values.find((v) => v.labels.job === 'integrity-check' && v.labels.result === 'ok')?.value ?? 0;
    expect(after - before).toBe(1);
    // the hold goes on: another instance still finds the lock taken
    const dialect = t.app.get<SqlDialect>(SQL_DIALECT);
    expect(await dialect.tryJobLock(t.db, 'maintenance:integrity-check')).toBeNull();
  });

  it('releases the lock of a failed scheduled run at once: the operator’s rerun after a fix is not answered busy', async () => {
    const runner = t.app.get(MaintenanceJobRunner);
    const failed = await runner.run(
      'audit-seal',
      async () => {
        throw new Error('no privilege to insert a seal');
      },
      { scheduled: true, lockHoldMs: 60_000 },
    );
    expect(failed.status).toBe('failed');
    const rerun = await runner.run('audit-seal', async () => ({ status: 'ok', details: {} }));
    expect(rerun.status).toBe('ok');
  });
});
