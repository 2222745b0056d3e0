import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { monthStart } from '../../src/audit/maintenance/storage-policy.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { recordFigures } from '../reliability/support/figures.js';
import { type Answer, Instances, SHIFTED_CLOCK } from './support/instances.js';

/**
 * Three built service processes on ONE database, requests spread round-robin over them as a load
 * balancer would: every rule that must hold across replicas is held by the database (unique
 * constraints, row locks, counted failures, the job lock), never by one process's memory.
 * Each scenario is one test; a new cross-instance rule is one more `it` in this describe.
 */
const figures: Record<string, unknown> = {};
let cluster: Instances;

const uid = () => randomBytes(3).toString('hex').toUpperCase();
const summary = (answers: Answer[]) =>
  answers.reduce<Record<string, number>>((acc, a) => {
    const key = `${a.status}${a.body?.code ? ` ${a.body.code}` : ''}`;
    acc[key] = (acc[key] ?? 0) + 1;
    return acc;
  }, {});

describe('three instances on one database, requests round-robin', () => {
  let admin: string;

  beforeAll(async () => {
    const started = performance.now();
    cluster = await Instances.start('races');
    figures.startMs = Math.round(performance.now() - started);
    admin = (await cluster.adminLogin()).accessToken;
  });
  afterAll(async () => {
    figures.requestsPerInstance = cluster?.served;
    await cluster?.close();
  });

  it('three instances starting together on an empty database bootstrap exactly one admin, and every instance answers', async () => {
    expect(Number((await cluster.query('SELECT count(*) AS n FROM users WHERE username = $1', ['admin']))[0].n)).toBe(1);
    for (let i = 0; i < cluster.count; i++) expect((await cluster.on(i, 'GET', '/api/v1/auth/me', { token: admin })).status).toBe(200);
  });

  it('20 parallel identical creates spread over the instances: exactly one 201, the other 19 are 409 duplicado', async () => {
    const body = { codigo: `MULTI_${uid()}`, nombre: 'Carrera entre réplicas' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => cluster.call('POST', '/api/v1/admin/medios', { token: admin, body })));
    figures.creates = summary(answers);
    expect(summary(answers)).toEqual({ '201': 1, '409 duplicado': 19 });
    expect(Number((await cluster.query('SELECT count(*) AS n FROM medios WHERE codigo = $1', [body.codigo]))[0].n)).toBe(1);
  });

  it('parallel refreshes of one refresh token on every instance: at most one succeeds and the whole family is revoked', async () => {
    const user = await cluster.createUser('cajero');
    const body = { accessToken: user.token, refreshToken: user.refreshToken };
    const answers = await Promise.all(Array.from({ length: 12 }, () => cluster.call('POST', '/api/v1/auth/refresh', { body })));
    figures.refreshes = summary(answers);
    const winners = answers.filter((a) => a.status === 200);
    expect(winners.length).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 401 && a.body?.code === 'refresh_invalido')).toBe(true);
    // the reuse revoked the family: no token of it is left, the winner's new one included
    const live = await cluster.query('SELECT count(*) AS n FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id]);
    expect(Number(live[0].n)).toBe(0);
    for (const w of winners) {
      for (let i = 0; i < cluster.count; i++) {
        const again = await cluster.on(i, 'POST', '/api/v1/auth/refresh', {
          body: { accessToken: w.body.accessToken, refreshToken: w.body.refreshToken },
        });
        expect(again.status).toBe(401);
      }
    }
  });

  it('login failures spread over the instances count as one limit: after 10 the right password is 429 on every instance', async () => {
    const user = await cluster.createUser('cajero');
    const failures = await Promise.all(
      Array.from({ length: 10 }, () =>
        cluster.call('POST', '/api/v1/auth/login', { body: { username: user.username, password: 'wrong-password-1' } }),
      ),
    );
    expect(summary(failures)).toEqual({ '401 credenciales_invalidas': 10 });
    const after: Answer[] = [];
    for (let i = 0; i < cluster.count; i++)
      after.push(await cluster.on(i, 'POST', '/api/v1/auth/login', { body: { username: user.username, password: user.password } }));
    figures.throttle = { failuresSpread: summary(failures), rightPasswordAfter: summary(after) };
    expect(summary(after)).toEqual({ [`429 demasiados_intentos`]: cluster.count });
  });

  it('a burst of 30 wrong logins over the instances: at least 10 are checked, the excess is 429, never a 5xx', async () => {
    const user = await cluster.createUser('cajero');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        cluster.call('POST', '/api/v1/auth/login', { body: { username: user.username, password: 'wrong-password-2' } }),
      ),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    figures.throttleBurst = summary(answers);
    expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
    // an attempt misses only failures not yet committed: the overshoot is bounded by the attempts in flight
    expect(checked).toBeGreaterThanOrEqual(10);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);
  });

  it('anti-lockout races across the instances: administrators deactivating each other never leave no active administrator', async () => {
    const rounds: Array<Record<string, number>> = [];
    const bootstrapId = Number((await cluster.query('SELECT id FROM users WHERE username = $1', ['admin']))[0].id);
    try {
      for (let round = 0; round < 3; round++) {
        const admins = await Promise.all([1, 2, 3].map(() => cluster.createUser('admin')));
        // these three are the only administrators: every other user with the admin role is inactive
        await cluster.query(`UPDATE users SET activo = $1 WHERE role_id = (SELECT id FROM roles WHERE codigo = 'admin') AND id NOT IN ($2, $3, $4)`, [
          false,
          ...admins.map((a) => a.id),
        ]);
        const attempts = admins.flatMap((actor) =>
          admins.filter((target) => target !== actor).map((target) => ({ token: actor.token, path: `/api/v1/users/${target.id}/deactivate` })),
        );
        const answers = await Promise.all(attempts.map((a) => cluster.call('POST', a.path, { token: a.token })));
        rounds.push(summary(answers));
        expect(answers.every((a) => [200, 401, 409].includes(a.status))).toBe(true);
        expect(answers.filter((a) => a.status === 409).every((a) => a.body?.code === 'anti_lockout')).toBe(true);
        const active = await cluster.query<{ id: number }>('SELECT id FROM users WHERE id IN ($1, $2, $3) AND activo = $4', [
          ...admins.map((a) => a.id),
          true,
        ]);
        expect(active.length).toBeGreaterThanOrEqual(1);
        // the survivor really holds both administration permissions, as every instance sees it
        const survivor = admins.find((a) => a.id === Number(active[0]!.id))!;
        for (let i = 0; i < cluster.count; i++) {
          const view = await cluster.on(i, 'GET', `/api/v1/users/${survivor.id}/permisos`, { token: survivor.token });
          expect(view.status).toBe(200);
          expect(view.body.efectivos).toEqual(expect.arrayContaining(['administracion:usuarios:gestionar', 'administracion:roles:gestionar']));
        }
      }
    } finally {
      await cluster.query('UPDATE users SET activo = $1 WHERE id = $2', [true, bootstrapId]);
    }
    figures.antiLockoutRounds = rounds;
  });

  it('10 parallel If-Match changes of one medio spread over the instances: exactly one 200, nine 412 version_obsoleta, the winner’s nombre stored', async () => {
    const created = await cluster.call('POST', '/api/v1/admin/medios', {
      token: admin,
      body: { codigo: `IFM_${uid()}`, nombre: 'Antes de la carrera' },
    });
    expect(created.status).toBe(201);
    const id = Number(created.body.id);
    const read = await cluster.call('GET', `/api/v1/admin/medios/${id}`, { token: admin });
    const etag = read.headers.get('etag');
    expect(read.status).toBe(200);
    expect(etag).toBeTruthy();
    const nombres = Array.from({ length: 10 }, (_, n) => `Cambio ${n + 1} desde la instancia ${n % cluster.count}`);
    const answers = await Promise.all(
      nombres.map((nombre, n) =>
        cluster.on(n % cluster.count, 'PUT', `/api/v1/admin/medios/${id}`, { token: admin, body: { nombre }, headers: { 'if-match': etag! } }),
      ),
    );
    figures.ifMatch = summary(answers);
    expect(summary(answers)).toEqual({ '200': 1, '412 version_obsoleta': 9 });
    const winner = nombres[answers.findIndex((a) => a.status === 200)];
    expect(answers.find((a) => a.status === 200)!.body.nombre).toBe(winner);
    expect((await cluster.query('SELECT nombre FROM medios WHERE id = $1', [id]))[0].nombre).toBe(winner);
    // every instance now reads the winner's change
    for (let i = 0; i < cluster.count; i++)
      expect((await cluster.on(i, 'GET', `/api/v1/admin/medios/${id}`, { token: admin })).body.nombre).toBe(winner);
  });

  it('a session ended on one instance: its access token is 401 on the other instances at once and its refresh token is refused', async () => {
    const user = await cluster.createUser('cajero');
    const before: Answer[] = [];
    for (let i = 0; i < cluster.count; i++) before.push(await cluster.on(i, 'GET', '/api/v1/auth/me', { token: user.token }));
    expect(summary(before)).toEqual({ '200': cluster.count });
    const list = await cluster.on(0, 'GET', '/api/v1/auth/sessions', { token: user.token });
    expect(list.status).toBe(200);
    const current = (list.body as Array<{ id: string; current: boolean }>).filter((s) => s.current);
    expect(current).toHaveLength(1);
    const ended = await cluster.on(0, 'DELETE', `/api/v1/auth/sessions/${current[0]!.id}`, { token: user.token });
    expect(ended.status).toBe(204);
    // no wait between the end and these requests: no instance may keep the session in memory
    const after: Answer[] = [];
    for (let i = 1; i < cluster.count; i++) after.push(await cluster.on(i, 'GET', '/api/v1/auth/me', { token: user.token }));
    const refresh = await cluster.on(1, 'POST', '/api/v1/auth/refresh', { body: { accessToken: user.token, refreshToken: user.refreshToken } });
    figures.sessionEnded = { before: summary(before), otherInstancesAfter: summary(after), refresh: summary([refresh]) };
    expect(after.map((a) => a.status)).toEqual(Array.from({ length: cluster.count - 1 }, () => 401));
    expect(refresh.status).toBe(401);
    expect(refresh.body?.code).toBe('refresh_invalido');
  });
});

describe('scheduled maintenance jobs fired on three instances at the same moment', () => {
  afterAll(() => {
    recordFigures(
      'replicas',
      `replicas: 3 instances on one database; creates ${JSON.stringify(figures.creates)}, refreshes ${JSON.stringify(figures.refreshes)}, ` +
        `jobs ${JSON.stringify(figures.jobs)}`,
      figures,
    );
  });

  // An instant each job's schedule fires at (UTC), in the past: the database's own now() stays
  // later than the shifted clocks, so retention's cutoff is never younger than the database allows.
  const SLOTS = [
    ['partition-manager', '2026-11-01T02:00:00.000Z'], // the 1st of a month, 02:00
    ['retention', '2026-01-01T03:00:00.000Z'], // 1 January, 03:00
    ['integrity-check', '2026-11-15T01:00:00.000Z'], // a Sunday, 01:00
  ] as const;

  /** how long three processes took to start last time: the next start gets twice that before the slot */
  let startMs = 10_000;

  /**
   * Three instances with JOBS_ENABLED whose clocks (shifted by the same amount) reach `slot` at
   * the same real moment, once all three listen. A start slower than planned (a busy machine) is
   * retried with a longer lead, so the slot is never missed.
   */
  async function startFiringTogether(job: string, slot: string): Promise<{ jobs: Instances; fireAt: number }> {
    for (let attempt = 1; ; attempt++) {
      const fireAt = Date.now() + Math.round(Math.max(20_000, 2 * startMs));
      const begun = performance.now();
      const jobs = await Instances.start(`job-${job}`, {
        env: { JOBS_ENABLED: 'true', NODE_OPTIONS: `--import=${SHIFTED_CLOCK}`, TEST_CLOCK_OFFSET_MS: String(Date.parse(slot) - fireAt) },
        // the first start records the administrator's creation at the shifted instant: its month needs a partition
        prepare: async (owner) => {
          const month = monthStart(new Date(slot));
          const dialect = dialectFor(owner.options.type === 'mssql' ? 'mssql' : 'postgres');
          for (const store of ['audit_events', 'security_events'] as const) await dialect.ensureMonthlyPartitions(owner, store, month, month);
        },
      });
      startMs = performance.now() - begun;
      if (Date.now() < fireAt - 2_000) return { jobs, fireAt };
      await jobs.close();
      if (attempt === 3) throw new Error(`three instances did not start within ${Math.round(startMs)} ms three times`);
    }
  }

  it.each(SLOTS)('%s runs exactly once: one instance does the work, the other two report busy', async (job, slot) => {
    const { jobs, fireAt } = await startFiringTogether(job, slot);
    try {
      // the scheduled runs, at the slot or after it on the shifted clocks; not the partition
      // manager's run of the first start, logged at least 2 s before it
      const runs = () => jobs.logLines().filter((l) => l.context === 'Maintenance' && l.job === job && Number(l.time) >= Date.parse(slot) - 1000);
      const deadline = fireAt + 60_000;
      while (runs().length < jobs.count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      const outcomes = runs().map((l) => ({ instance: l.instance, status: l.status }));
      (figures.jobs as Record<string, unknown>) ??= {};
      (figures.jobs as Record<string, unknown>)[job] = outcomes.map((o) => o.status).sort();
      // how far apart the three instances logged their outcome (the winner after its work)
      const times = runs().map((l) => Number(l.time));
      (figures.jobOutcomeSpreadMs as Record<string, unknown>) ??= {};
      (figures.jobOutcomeSpreadMs as Record<string, unknown>)[job] = Math.max(...times) - Math.min(...times);
      const worked = outcomes.filter((o) => o.status !== 'busy');
      expect(outcomes).toHaveLength(3);
      expect(worked).toHaveLength(1);
      expect(worked[0]!.status).not.toBe('failed');
    } finally {
      await jobs.close();
    }
  });
});
