import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';
import { ago, insertEvent, seedEvents } from './audit-test-data.js';

const URL = '/api/v1/audit/events';

/**
 * GET /api/v1/audit/events (docs/api.md "Audit trail"). Each test writes its events
 * under its own targetType (or reads the whole store), so the tests of this file do not see each
 * other's rows where it matters.
 */
describe('GET /api/v1/audit/events', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const list = (query: Record<string, string | number | undefined>, token = admin) => t.get(URL, { token, query });

  /** Follows nextCursor from the first page to the last; returns the ids in the order seen. */
  async function walk(query: Record<string, string | number | undefined>): Promise<{ ids: number[]; pages: number }> {
    const ids: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await list({ ...query, cursor });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(Number(query.limit ?? 50));
      ids.push(...res.body.items.map((e: { id: number }) => e.id));
      cursor = res.body.nextCursor ?? undefined;
      pages++;
      if (pages > 10_000) throw new Error('the walk does not end');
    } while (cursor);
    return { ids, pages };
  }

  /** The ids the store holds for a filter, newest first by (occurred_at, id): the expected walk. */
  async function expectedIds(where = '1 = 1', params: unknown[] = []): Promise<number[]> {
    const rows = await t.query(`SELECT id FROM audit_events WHERE ${where} ORDER BY occurred_at DESC, id DESC`, params);
    return rows.map((r) => Number(r.id));
  }

  describe('access (rule 1)', () => {
    it('answers 200 to an auditor, who holds administracion:auditoria:ver', async () => {
      const auditor = await t.createUser('auditor');
      const res = await list({}, auditor.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: expect.any(Array), nextCursor: null });
    });
  });

  describe('validation (rule 2)', () => {
    it.each(['0', '101', '-1', '1.5', 'abc', '1e2', ''])('answers 400 for limit=%p', async (limit) => {
      const res = await list({ limit });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validacion');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'limit' })]));
    });

    it('accepts limit 1 and 100, and defaults to 50', async () => {
      await seedEvents(t, { count: 120, newest: ago(60_000), sharePerSecond: 1, actors: [1], targetTypes: ['limits'], targetIds: 3 });
      expect((await list({ targetType: 'limits', limit: 1 })).body.items).toHaveLength(1);
      expect((await list({ targetType: 'limits', limit: 100 })).body.items).toHaveLength(100);
      expect((await list({ targetType: 'limits' })).body.items).toHaveLength(50);
    });

    it('answers 400 when from is later than to, and 200 when they are equal', async () => {
      const res = await list({ from: '2025-03-02T00:00:00Z', to: '2025-03-01T23:59:59.999999Z' });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validacion');
      expect((await list({ from: '2025-03-01T00:00:00Z', to: '2025-03-01T00:00:00Z' })).status).toBe(200);
      // the same instant written with an offset is not later
      expect((await list({ from: '2025-03-01T00:00:00-03:00', to: '2025-03-01T03:00:00Z' })).status).toBe(200);
    });

    it('answers an empty page, not a 500, for a from in the last microsecond of year 9999', async () => {
      const res = await list({ from: '9999-12-31T23:59:59.9999995Z' });
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([]);
    });

    it.each([
      ['from', 'yesterday'],
      ['from', '2025-02-30T00:00:00Z'],
      ['from', '2025-03-01'],
      ['to', '1741000000'],
      ['to', '2025-03-01T25:00:00Z'],
    ])('answers 400 for an unparsable timestamp %s=%p', async (field, value) => {
      const res = await list({ [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it.each(['abc', '1.5', '0', '-3', '99999999999'])('answers 400 for an unparsable actorUserId=%p', async (actorUserId) => {
      const res = await list({ actorUserId });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'actorUserId' })]));
    });

    it.each([
      ['action', 64],
      ['targetType', 64],
      ['targetId', 128],
    ] as const)(
      'answers 400 maxLength for a %s over %i UTF-16 units (what its parameter holds on SQL Server), emoji counted as 2',
      async (field, max) => {
        const res = await list({ [field]: '😀'.repeat(max / 2 + 1) });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([expect.objectContaining({ field, code: 'maxLength' })]);
        expect((await list({ [field]: '😀'.repeat(max / 2) })).status).toBe(200);
      },
    );

    it('answers 400 for an unknown query parameter', async () => {
      const res = await list({ accion: 'usuario.create' });
      expect(res.status).toBe(400);
    });
  });

  describe('filters', () => {
    beforeAll(async () => {
      await seedEvents(t, {
        count: 300,
        newest: ago(3_600_000),
        sharePerSecond: 4,
        actors: [1, 2, 3],
        targetTypes: ['flt_a', 'flt_b'],
        targetIds: 5,
      });
    });

    it('filters by actorUserId', async () => {
      const { ids } = await walk({ actorUserId: 2, limit: 100 });
      expect(ids).toEqual(await expectedIds('actor_user_id = $1', [2]));
      expect(ids.length).toBeGreaterThan(0);
    });

    it('filters by targetType', async () => {
      const { ids } = await walk({ targetType: 'flt_b', limit: 100 });
      expect(ids).toEqual(await expectedIds('target_type = $1', ['flt_b']));
      expect(ids).toHaveLength(150);
    });

    it('filters by targetId, compared as text', async () => {
      const { ids } = await walk({ targetId: '3', limit: 100 });
      expect(ids).toEqual(await expectedIds('target_id = $1', ['3']));
      expect(ids.length).toBeGreaterThan(0);
    });

    it('combines every filter with AND', async () => {
      const from = ago(3_600_000 + 40_000);
      const to = ago(3_600_000 + 10_000);
      const { ids } = await walk({ actorUserId: 1, targetType: 'flt_a', targetId: '4', from, to, limit: 7 });
      expect(ids).toEqual(
        await expectedIds('actor_user_id = $1 AND target_type = $2 AND target_id = $3 AND occurred_at >= $4 AND occurred_at <= $5', [
          1,
          'flt_a',
          '4',
          new Date(from),
          new Date(to),
        ]),
      );
      expect(ids.length).toBeGreaterThan(0);
    });

    it('treats from and to as inclusive, to the microsecond', async () => {
      const base = `${new Date().toISOString().slice(0, 10)}T00:00:00.`;
      const before = await insertEvent(t, { occurredAt: `${base}000001Z`, actorUserId: 1, targetType: 'bounds' });
      const first = await insertEvent(t, { occurredAt: `${base}000002Z`, actorUserId: 1, targetType: 'bounds' });
      const last = await insertEvent(t, { occurredAt: `${base}000003Z`, actorUserId: 1, targetType: 'bounds' });
      const after = await insertEvent(t, { occurredAt: `${base}000004Z`, actorUserId: 1, targetType: 'bounds' });
      const res = await list({ targetType: 'bounds', from: `${base}000002Z`, to: `${base}000003Z` });
      expect(res.body.items.map((e: { id: number }) => e.id)).toEqual([last, first]);
      const wider = await list({ targetType: 'bounds', from: `${base}000001Z`, to: `${base}000004Z` });
      expect(wider.body.items.map((e: { id: number }) => e.id)).toEqual([after, last, first, before]);
      // digits beyond the store's precision: from admits no earlier instant, to no later one
      const finer = await list({ targetType: 'bounds', from: `${base}0000019Z`, to: `${base}0000039Z` });
      expect(finer.body.items.map((e: { id: number }) => e.id)).toEqual([last, first]);
      const sevenDigits = await list({ targetType: 'bounds', from: `${base}0000011Z`, to: `${base}0000031Z` });
      expect(sevenDigits.body.items.map((e: { id: number }) => e.id)).toEqual([last, first]);
    });
  });

  describe('order and cursors (rules 3–5)', () => {
    it('orders newest first by occurredAt, then by id among equal timestamps', async () => {
      const at = ago(7_200_000);
      const a = await insertEvent(t, { occurredAt: at, actorUserId: 1, targetType: 'order' });
      const b = await insertEvent(t, { occurredAt: at, actorUserId: 1, targetType: 'order' });
      const older = await insertEvent(t, { occurredAt: ago(7_300_000), actorUserId: 1, targetType: 'order' });
      const newer = await insertEvent(t, { occurredAt: ago(7_100_000), actorUserId: 1, targetType: 'order' });
      const res = await list({ targetType: 'order' });
      expect(res.body.items.map((e: { id: number }) => e.id)).toEqual([newer, b, a, older]);
    });

    it('gives a nextCursor only while more rows exist (one extra row is read)', async () => {
      await seedEvents(t, { count: 10, newest: ago(8_000_000), sharePerSecond: 1, actors: [1], targetTypes: ['exact'], targetIds: 1 });
      const page1 = await list({ targetType: 'exact', limit: 5 });
      expect(page1.body.items).toHaveLength(5);
      expect(typeof page1.body.nextCursor).toBe('string');
      const page2 = await list({ targetType: 'exact', limit: 5, cursor: page1.body.nextCursor });
      expect(page2.body.items).toHaveLength(5);
      expect(page2.body.nextCursor).toBeNull(); // exactly 10 rows: no empty third page
      expect((await list({ targetType: 'exact', limit: 10 })).body.nextCursor).toBeNull();
      expect((await list({ targetType: 'exact', limit: 9 })).body.nextCursor).not.toBeNull();
    });

    it('visits each of 1,200 events exactly once and in order, with 10 events on every timestamp', async () => {
      await seedEvents(t, {
        count: 1200,
        newest: ago(86_400_000),
        sharePerSecond: 10,
        actors: [1, 2],
        targetTypes: ['walk_a', 'walk_b', 'walk_c'],
        targetIds: 7,
      });
      const { ids, pages } = await walk({ limit: 37 });
      const expected = await expectedIds();
      expect(expected.length).toBeGreaterThanOrEqual(1200);
      expect(ids).toEqual(expected);
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages).toBe(Math.ceil(expected.length / 37));
    });

    it('visits each event exactly once when walking with filters over shared timestamps', async () => {
      const { ids } = await walk({ actorUserId: 2, targetType: 'walk_b', limit: 13 });
      const expected = await expectedIds('actor_user_id = $1 AND target_type = $2', [2, 'walk_b']);
      expect(expected.length).toBeGreaterThan(150);
      expect(ids).toEqual(expected);
      const byTarget = await walk({ targetType: 'walk_c', targetId: '5', limit: 3 });
      expect(byTarget.ids).toEqual(await expectedIds('target_type = $1 AND target_id = $2', ['walk_c', '5']));
    });

    it('keeps the full timestamp precision in the cursor: events a microsecond apart are each seen once', async () => {
      const base = `${ago(90_000_000).slice(0, 19)}.5000`;
      const ids: number[] = [];
      for (const us of ['01', '01', '02', '03', '03', '04'])
        ids.push(await insertEvent(t, { occurredAt: `${base}${us}Z`, actorUserId: 1, targetType: 'micro' }));
      const walked = await walk({ targetType: 'micro', limit: 1 });
      expect(walked.ids).toEqual(await expectedIds('target_type = $1', ['micro']));
      expect([...walked.ids].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
    });

    it('walks across a month boundary (the cursor month is read first, then what is older) seeing each event once', async () => {
      const now = new Date();
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const at = (offsetMs: number, us = '000') => `${new Date(monthStart.getTime() + offsetMs).toISOString().slice(0, 23)}${us}Z`;
      const instants = [at(5000), at(1000), at(0), at(0), at(0, '001'), at(-1, '999'), at(-1000), at(-1000), at(-86_400_000)];
      for (const [i, occurredAt] of instants.entries())
        await insertEvent(t, { occurredAt, actorUserId: 1 + (i % 2), targetType: 'month_edge', targetId: String(i % 3) });
      const expected = await expectedIds('target_type = $1', ['month_edge']);
      expect(expected).toHaveLength(instants.length);
      for (const limit of [1, 2, 3, 4, 8]) expect((await walk({ targetType: 'month_edge', limit })).ids).toEqual(expected);
      const byActor = await walk({ targetType: 'month_edge', actorUserId: 2, limit: 2 });
      expect(byActor.ids).toEqual(await expectedIds('target_type = $1 AND actor_user_id = $2', ['month_edge', 2]));
      // bounds on either side of the month's start
      const from = at(-1000);
      const to = at(1000);
      const bounded = await walk({ targetType: 'month_edge', from, to, limit: 2 });
      expect(bounded.ids).toEqual(await expectedIds('target_type = $1 AND occurred_at >= $2 AND occurred_at <= $3', ['month_edge', from, to]));
      expect(bounded.ids).toHaveLength(7);
    });

    it.each([['garbage'], ['a.b'], ['...'], ['eyJ0IjoiMjAyNS0wMS0wMVQwMDowMDowMFoiLCJpZCI6IjEifQ'], ['%%%'], ['x'.repeat(2000)], ['a\u0000b']])(
      'ignores a malformed cursor %#, starting from the top',
      async (cursor) => {
        const top = await list({ limit: 5 });
        const res = await list({ limit: 5, cursor });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(top.body);
      },
    );

    it('ignores a cursor whose position was edited (it no longer verifies), starting from the top', async () => {
      const top = await list({ limit: 5 });
      const [payload, signature] = (top.body.nextCursor as string).split('.');
      const position = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      const forged = Buffer.from(JSON.stringify({ ...position, id: String(Number(position.id) - 1) })).toString('base64url');
      const res = await list({ limit: 5, cursor: `${forged}.${signature}` });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(top.body);
      // the genuine cursor continues after the first page
      const next = await list({ limit: 5, cursor: top.body.nextCursor });
      expect(next.body.items[0].id).not.toBe(top.body.items[0].id);
    });

    it('ignores a repeated cursor parameter, starting from the top', async () => {
      const top = await list({ limit: 5 });
      const res = await t.get(`${URL}?limit=5&cursor=a&cursor=b`, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(top.body);
    });
  });

  describe('items (rule 6)', () => {
    it('shows each event as AuditEventDto, with actorUsername from the users table', async () => {
      const res = await t.post(
        '/api/v1/roles',
        { codigo: 'audit_probe', nombre: 'Probe', descripcion: 'x' },
        { token: admin, headers: { 'user-agent': 'audit-test/1.0' } },
      );
      expect(res.status).toBe(201);
      const [stored] = await t.auditEvents({ action: 'rol.create', targetId: 'audit_probe' });
      const page = await list({ targetType: 'rol', targetId: 'audit_probe' });
      expect(page.body.items).toHaveLength(1);
      const item = page.body.items[0];
      expect(Object.keys(item).sort()).toEqual(
        [
          'action',
          'actorRoleId',
          'actorUserId',
          'actorUsername',
          'correlationId',
          'id',
          'ip',
          'metadata',
          'occurredAt',
          'targetId',
          'targetType',
          'userAgent',
        ].sort(),
      );
      expect(item).toEqual({
        id: Number(stored.id),
        occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
        actorUserId: Number(stored.actor_user_id),
        actorUsername: 'admin',
        actorRoleId: null,
        ip: expect.any(String),
        userAgent: 'audit-test/1.0',
        correlationId: stored.correlation_id,
        action: 'rol.create',
        targetType: 'rol',
        targetId: 'audit_probe',
        metadata: { after: expect.objectContaining({ codigo: 'audit_probe' }) },
      });
      expect(new Date(item.occurredAt).getTime()).toBe(new Date(stored.occurred_at).getTime());
    });

    it('shows actorUsername null when the actor does not exist, and targetId as a string', async () => {
      const correlationId = '0f8fad5b-d9cb-469f-a165-70867728950e';
      const id = await insertEvent(t, {
        occurredAt: ago(1_000),
        actorUserId: 987654,
        targetType: 'ghost',
        targetId: '12',
        metadata: null,
        correlationId,
      });
      const [item] = (await list({ targetType: 'ghost' })).body.items;
      expect(item).toMatchObject({ id, actorUserId: 987654, actorUsername: null, targetId: '12', metadata: null, correlationId });
    });
  });
});
