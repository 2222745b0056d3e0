import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PartitionManagerService } from '../../src/audit/maintenance/partition-manager.service.js';
import { monthLabel, monthStart } from '../../src/audit/maintenance/storage-policy.js';
import { ago, insertEvent } from '../audit/audit-test-data.js';
import { dropMonthPartition, setRetentionYears, setVersioning } from '../audit/storage-helpers.js';
import { TestApp } from '../support/test-app.js';

const CHECKS = ['versioning', 'retention', 'partitions_audit_events', 'partitions_security_events', 'freshness'];

/** Removes the first start's event, as the owner (the service's own role could not), to stage the store's age. */
const emptyAuditStore = (t: TestApp) => t.query('DELETE FROM audit_events');

/**
 * GET /health/audit (docs/api.md "Health"): one indicator per check; each test breaks
 * exactly one thing, sees 503 naming it, repairs it and sees 200 again.
 */
describe('GET /health/audit', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create()));
  afterAll(() => t.close());

  /** Asserts a 503 whose only failing entries are `failing`, every other check up. */
  async function expectDown(failing: string[]) {
    const res = await t.get('/health/audit');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('error');
    expect(Object.keys(res.body.error).sort()).toEqual([...failing].sort());
    for (const key of failing) expect(res.body.error[key].status).toBe('down');
    expect(Object.keys(res.body.info).sort()).toEqual(CHECKS.filter((c) => !failing.includes(c)).sort());
    expect(Object.keys(res.body.details).sort()).toEqual([...CHECKS].sort());
    expect(res.text).not.toMatch(/postgres:\/\/|mssql:\/\/|password|stack|at .*\.js:\d+/i);
    return res.body;
  }

  async function expectUp() {
    const res = await t.get('/health/audit');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.error).toEqual({});
    expect(Object.keys(res.body.info).sort()).toEqual([...CHECKS].sort());
    return res.body;
  }

  it('answers 200 with every check up on a fresh install, whose one event is the first administrator’s creation, without a token', async () => {
    expect(await t.query('SELECT action FROM audit_events')).toEqual([{ action: 'usuario.create' }]);
    const body = await expectUp();
    expect(body.info.freshness).toMatchObject({ status: 'up', newestEventAt: expect.any(String), maxAgeHours: 24 });
    expect(body.info.versioning).toEqual({ status: 'up', tables: ['users', 'roles', 'permissions', 'role_permissions'] });
    expect(body.info.retention).toEqual({ status: 'up', years: 10, tables: ['users', 'roles', 'permissions', 'role_permissions'] });
    expect(body.info.partitions_audit_events.months).toEqual([0, 1, 2, 3].map((i) => monthLabel(monthStart(new Date(), i))));
  });

  it('reports versioning down, naming the table, while the versioning of users is off; up once it is on again', async () => {
    await setVersioning(t, 'users', false);
    try {
      const body = await expectDown(['versioning']);
      expect(body.error.versioning.failing).toEqual([{ table: 'users', problem: 'system versioning is off' }]);
      expect(body.error.versioning.message).toContain('users');
    } finally {
      await setVersioning(t, 'users', true);
    }
    await expectUp();
  });

  it('reports retention down, naming the table and its retention, while the recorded retention of roles is not 10 years', async () => {
    await setRetentionYears(t, 'roles', 1);
    try {
      const body = await expectDown(['retention']);
      expect(body.error.retention).toMatchObject({ expectedYears: 10, failing: [{ table: 'roles', retention: expect.stringMatching(/^1 year/i) }] });
    } finally {
      await setRetentionYears(t, 'roles', 10);
    }
    await expectUp();
  });

  it('reports the partitions of audit_events down, naming the month, when a future month has no partition; up after the partition manager runs', async () => {
    const month = monthStart(new Date(), 2);
    const stores = await dropMonthPartition(t, 'audit_events', month);
    const body = await expectDown(stores.map((s) => `partitions_${s}`));
    expect(body.error.partitions_audit_events).toMatchObject({ table: 'audit_events', missing: [monthLabel(month)] });
    expect(body.error.partitions_audit_events.message).toContain(monthLabel(month));
    expect((await t.app.get(PartitionManagerService).run()).status).toBe('ok');
    await expectUp();
  });

  it('reports the partitions of security_events down when its month 3 ahead is missing; up after the partition manager runs', async () => {
    const month = monthStart(new Date(), 3);
    const stores = await dropMonthPartition(t, 'security_events', month);
    const body = await expectDown(stores.map((s) => `partitions_${s}`));
    expect(body.error.partitions_security_events).toMatchObject({ table: 'security_events', missing: [monthLabel(month)] });
    expect((await t.app.get(PartitionManagerService).run()).status).toBe('ok');
    await expectUp();
  });

  it('counts an empty audit store as fresh', async () => {
    await emptyAuditStore(t);
    expect((await expectUp()).info.freshness).toEqual({ status: 'up', newestEventAt: null, maxAgeHours: 24 });
  });

  it('reports freshness down while the newest audit event is older than 24 hours; up once a recent event exists', async () => {
    await emptyAuditStore(t);
    const backDated = ago(25 * 3_600_000);
    await insertEvent(t, { occurredAt: backDated, actorUserId: 1 });
    const body = await expectDown(['freshness']);
    expect(body.error.freshness).toMatchObject({ newestEventAt: new Date(backDated).toISOString(), maxAgeHours: 24, ageHours: expect.any(Number) });
    expect(body.error.freshness.ageHours).toBeGreaterThan(24);
    await insertEvent(t, { occurredAt: ago(60_000), actorUserId: 1 });
    const up = await expectUp();
    expect(up.info.freshness.ageHours).toBeLessThan(1);
  });

  it('reports versioning down when a history table is missing', async () => {
    if (t.engine === 'postgres') {
      await t.query('ALTER TABLE permissions_history RENAME TO permissions_history_moved');
      try {
        const body = await expectDown(['versioning']);
        expect(body.error.versioning.failing).toEqual([{ table: 'permissions', problem: 'history table permissions_history is missing' }]);
      } finally {
        await t.query('ALTER TABLE permissions_history_moved RENAME TO permissions_history');
      }
    } else {
      // SQL Server cannot drop or rename the history table of a system-versioned table: versioning off is the only way to lose it
      await setVersioning(t, 'permissions', false);
      try {
        await expectDown(['versioning']);
      } finally {
        await setVersioning(t, 'permissions', true);
      }
    }
    await expectUp();
  });
});

describe('GET /health/audit with AUDIT_FRESHNESS_HOURS', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create({ env: { AUDIT_FRESHNESS_HOURS: '48' } })));
  afterAll(() => t.close());

  it('uses the configured allowance: a 25-hour-old newest event is fresh within 48 hours, a 49-hour-old one is not', async () => {
    await emptyAuditStore(t);
    await insertEvent(t, { occurredAt: ago(49 * 3_600_000), actorUserId: 1 });
    let res = await t.get('/health/audit');
    expect(res.status).toBe(503);
    expect(res.body.error.freshness).toMatchObject({ maxAgeHours: 48 });
    await insertEvent(t, { occurredAt: ago(25 * 3_600_000), actorUserId: 1 });
    res = await t.get('/health/audit');
    expect(res.status).toBe(200);
    expect(res.body.info.freshness).toMatchObject({ maxAgeHours: 48 });
  });
});
