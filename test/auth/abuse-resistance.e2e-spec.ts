import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TransactionHost } from '@nestjs-cls/transactional';
import bcrypt from 'bcrypt';
import { bcryptConcurrency, PasswordHasher } from '../../src/auth/password-hasher.js';
import { SQL_DIALECT, type SqlDialect } from '../../src/database/dialects/index.js';
import { AppMetrics } from '../../src/observability/metrics.js';
import { PasswordStrength } from '../../src/users/password-strength.js';
import { type CreatedUser, expectProblem, type HttpResult, TestApp } from '../support/test-app.js';
import { whileRunning } from '../support/concurrency.js';

const CHANGE = '/api/v1/users/me/password';
const LOGIN = '/api/v1/auth/login';

/** A JSON object text of `n` distinct keys: what one anonymous request used to block the event loop with. */
const manyKeys = (n: number, extra: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = { ...extra };
  for (let i = 0; i < n; i++) body[`k${i}`] = 1;
  return JSON.stringify(body);
};

/**
 * Holds every bcrypt compare until `release` is called (the spy goes with jest.restoreAllMocks);
 * `started` lists the passwords in the order their compares began: the hashing queue's order.
 */
function holdCompares(): { release: () => void; started: string[] } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started: string[] = [];
  const compare = bcrypt.compare.bind(bcrypt);
  jest.spyOn(bcrypt, 'compare').mockImplementation((async (data: string, encrypted: string) => {
    started.push(data);
    await gate;
    return compare(data, encrypted);
  }) as never);
  return { release, started };
}

/** Waits until `reached()`, failing with `state()` after 10 s rather than hanging the suite. */
async function until(reached: () => boolean, state: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!reached()) {
    if (Date.now() > deadline) throw new Error(`still ${state()} after 10 s`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Waits until `depth` password operations run or wait in the hasher's queue. */
function untilQueued(hasher: PasswordHasher, depth: number): Promise<void> {
  return until(
    () => hasher.queueDepth >= depth,
    () => `${hasher.queueDepth} of ${depth} password operations queued`,
  );
}

describe('abuse resistance: no caller can starve the service', () => {
  describe('password work never holds a connection, a transaction or a lock', () => {
    let t: TestApp, admin: string;
    beforeAll(async () => ({ t, admin } = await TestApp.withAdmin({ env: { PASSWORD_QUEUE_MAX: '3' } })));
    afterAll(() => t.close());
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('hashes, compares and estimates strength outside any transaction in user create, password reset, own password change and sign-in', async () => {
      const txHost = t.app.get(TransactionHost);
      const inTransaction: string[] = [];
      const watch = (prototype: object, method: string) => {
        const original = (prototype as Record<string, (...args: unknown[]) => unknown>)[method]!;
        jest.spyOn(prototype as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (
          this: unknown,
          ...args: unknown[]
        ) {
          if (txHost.isTransactionActive()) inTransaction.push(method);
          return original.apply(this, args);
        });
      };
      watch(PasswordHasher.prototype, 'hash');
      watch(PasswordHasher.prototype, 'verify');
      watch(PasswordStrength.prototype, 'estimate');

      const username = `nt_${Date.now()}`;
      const created = await t.post(
        '/api/v1/users',
        { username, password: 'Clave-primera-segura-1', nombre: 'Nora', apellido: 'Toledo', email: `${username}@example.test`, rol: 'cajero' },
        { token: admin },
      );
      expect(created.status).toBe(201);
      const reset = await t.post(`/api/v1/users/${created.body.id}/password-reset`, undefined, { token: admin });
      expect(reset.status).toBe(200);
      const session = await t.login(username, reset.body.temporaryPassword);
      expectProblem(
        await t.put(CHANGE, { currentPassword: 'No-es-la-clave-9', newPassword: 'Otra-clave-segura-2' }, { token: session.accessToken }),
        400,
        'password_actual_incorrecto',
      );
      expect(
        (await t.put(CHANGE, { currentPassword: reset.body.temporaryPassword, newPassword: 'Otra-clave-segura-2' }, { token: session.accessToken }))
          .status,
      ).toBe(204);
      expect((PasswordHasher.prototype.hash as jest.Mock).mock.calls.length).toBeGreaterThanOrEqual(3);
      expect((PasswordHasher.prototype.verify as jest.Mock).mock.calls.length).toBeGreaterThanOrEqual(3);
      expect(inTransaction).toEqual([]);
    });

    it('answers 503 servicio_no_disponible with Retry-After at once when the hashing queue is full, and the refused sign-in does not count as a failure', async () => {
      const hasher = t.app.get(PasswordHasher);
      const users: CreatedUser[] = [];
      for (let i = 0; i < bcryptConcurrency() + t.config.passwordQueueMax; i++) users.push(await t.createUser('cajero'));
      const extra = await t.createUser('cajero');
      // bcrypt held until released: the running slots and the whole queue fill up
      const { release } = holdCompares();

      const waiting = users.map((u, i) => t.post(LOGIN, { username: u.username, password: u.password }, { remoteAddress: `10.7.0.${i + 1}` }));
      await untilQueued(hasher, bcryptConcurrency() + t.config.passwordQueueMax);
      const refused = await t.post(LOGIN, { username: extra.username, password: extra.password }, { remoteAddress: '10.7.1.1' });
      release();
      const answered = await Promise.all(waiting);

      expectProblem(refused, 503, 'servicio_no_disponible');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answered.map((r) => r.status)).toEqual(users.map(() => 200));
      expect((await t.query('SELECT id FROM login_failures WHERE subject = $1', ['10.7.1.1'])).length).toBe(0);
      // counted as back-pressure, which the error-ratio alert leaves out
      const shed = (await t.app.get(AppMetrics).requestsShed.get()).values;
      expect(Object.fromEntries(shed.map((v) => [v.labels.reason, v.value]))).toEqual({
        password_queue_full: 1,
        strength_queue_full: 0,
        sign_ins_in_flight: 0,
      });
    });
  });

  describe('sign-ins from one address do not hold back another address', () => {
    let t: TestApp;
    beforeAll(async () => (t = await TestApp.create()));
    afterAll(() => t.close());
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it("serves the hashing queue in turns by address: another address's sign-in waits for one of the burst, not for all of it", async () => {
      const hasher = t.app.get(PasswordHasher);
      const burst: CreatedUser[] = [];
      for (let i = 0; i < 10; i++) burst.push(await t.createUser('cajero'));
      const other = await t.createUser('cajero');
      const { release, started } = holdCompares();

      const signIn = (user: CreatedUser, remoteAddress: string) =>
        t.post(LOGIN, { username: user.username, password: user.password }, { remoteAddress }).then((res) => res.status);
      const fromBurst = burst.map((u) => signIn(u, '10.8.0.1'));
      await untilQueued(hasher, burst.length);
      const fromOther = signIn(other, '10.8.0.2');
      await untilQueued(hasher, burst.length + 1);
      release();

      expect(await Promise.all([...fromBurst, fromOther])).toEqual([...burst, other].map(() => 200));
      // the compares that were running, one more of the burst, then the other address's: in one
      // first-come queue it would have been the eleventh compare
      expect(started.indexOf(other.password)).toBe(bcryptConcurrency() + 1);
    });
  });

  describe("one account's burst of sign-ins does not fill its address's limit for the other accounts behind it", () => {
    let t: TestApp;
    beforeAll(async () => (t = await TestApp.create({ env: { LOGIN_MAX_FAILURES_PER_USER: '3', LOGIN_MAX_FAILURES_PER_IP: '5' } })));
    afterAll(() => t.close());
    afterEach(() => {
      jest.restoreAllMocks();
    });

    it('signs in another account from the same address at once while twelve of the first are in flight', async () => {
      const burster = await t.createUser('cajero');
      const colleague = await t.createUser('cajero');
      // the burst's compares are held: its attempts stay in flight for as long as the test needs
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const compare = bcrypt.compare.bind(bcrypt);
      jest.spyOn(bcrypt, 'compare').mockImplementation((async (data: string, encrypted: string) => {
        if (data === burster.password) await gate;
        return compare(data, encrypted);
      }) as never);
      const office = '10.9.0.1';
      const signIn = (user: CreatedUser) => t.post(LOGIN, { username: user.username, password: user.password }, { remoteAddress: office });

      let burstAnswered = 0;
      const burst = Array.from({ length: 12 }, () =>
        signIn(burster).then((res) => {
          burstAnswered++;
          return res;
        }),
      );
      await untilQueued(t.app.get(PasswordHasher), 3);
      // three of the burst are admitted (its account's limit), the other nine wait on that limit:
      // they hold no place in the address's limit of five, so the colleague is admitted at once and
      // its compare queues behind the burst's held ones (refused instead, it answers 503 first)
      const hasher = t.app.get(PasswordHasher);
      const colleagueSignIn = signIn(colleague);
      await Promise.race([
        until(
          () => hasher.queueDepth >= 4,
          () => `${hasher.queueDepth} password operations queued, not the burst's 3 and the colleague's`,
        ).catch(() => undefined),
        colleagueSignIn,
      ]);
      // admitted while the whole burst was still in flight, not once the burst's waiting attempts gave up
      expect(burstAnswered).toBe(0);
      release();
      expect((await colleagueSignIn).status).toBe(200);
      for (const res of await Promise.all(burst)) expect([200, 503]).toContain(res.status);
    });
  });

  describe("one user's statements do not hold back another user's at the connection pool", () => {
    let t: TestApp;
    beforeAll(async () => (t = await TestApp.create({ env: { DB_POOL_SIZE: '1' } })));
    afterAll(() => t.close());

    /** Waits until `n` acquisitions wait for the pool's one connection. */
    function untilWaiting(n: number): Promise<void> {
      const dialect = t.app.get<SqlDialect>(SQL_DIALECT);
      return until(
        () => dialect.poolUsage(t.db).waiting >= n,
        () => `${dialect.poolUsage(t.db).waiting} of ${n} acquisitions waiting`,
      );
    }

    it("lends connections in turns by user: another user's request is answered before a burst of ten that was waiting ahead of it", async () => {
      const hog = await t.createUser('cajero');
      const other = await t.createUser('cajero');
      // the test holds the one pooled connection, so every request's first statement waits in line
      const holder = t.db.createQueryRunner();
      await holder.connect();
      const answered: string[] = [];
      const me = (user: CreatedUser, name: string) =>
        t.get('/api/v1/auth/me', { token: user.token }).then((res) => {
          answered.push(name);
          return res.status;
        });
      try {
        const burst = Array.from({ length: 10 }, (_, i) => me(hog, `hog${i}`));
        await untilWaiting(10);
        const alone = me(other, 'other');
        await untilWaiting(11);
        await holder.release();
        expect(await Promise.all([...burst, alone])).toEqual(Array.from({ length: 11 }, () => 200));
      } finally {
        if (!holder.isReleased) await holder.release();
      }
      // each request sends one statement after another: the other user's next one takes the next
      // turn, the burst's go behind the burst's own, so it is answered first (first come, first
      // served, its first statement would be the eleventh and its answer the last)
      expect(answered.indexOf('other')).toBeLessThanOrEqual(1);
    });
  });

  describe('a storm of wrong password changes by a user without permissions', () => {
    let t: TestApp;
    let admin: string;
    let attacker: CreatedUser;
    const ATTACKER_IP = '10.9.0.1';
    beforeAll(async () => {
      // a production-like bcrypt cost: each compare takes long enough for a held connection to starve the pool
      t = await TestApp.create({ env: { BCRYPT_ROUNDS: '12' } });
      admin = await t.adminToken();
      attacker = await t.createUser('cajero');
      // createUser's sign-in replaced the attacker's cost-4 hash with one of BCRYPT_ROUNDS; back at
      // cost 4, the storm's compares end within the throttle's wait for attempts in flight (3 s)
      // however loaded the machine: what this checks is the bound, not bcrypt's speed
      await t.query('UPDATE users SET password_hash = $1 WHERE id = $2', [await bcrypt.hash(attacker.password, 4), attacker.id]);
    });
    afterAll(async () => {
      await t.close();
    });

    it("leaves another user's guarded reads and /health/ready answering 200 throughout 40 concurrent wrong currentPassword requests, which get only 400 or 429", async () => {
      const storm = Promise.all(
        Array.from({ length: 40 }, () =>
          t.put(
            CHANGE,
            { currentPassword: 'Not-the-password-1', newPassword: 'Otra-clave-segura-3' },
            { token: attacker.token, remoteAddress: ATTACKER_IP },
          ),
        ),
      );
      const { attack, victim } = await whileRunning(storm, () =>
        Promise.all([t.get('/api/v1/users', { token: admin, query: { pageSize: 5 } }), t.get('/health/ready')]),
      );

      const reads = victim.map(([read]) => read.status);
      const ready = victim.map(([, probe]) => probe.status);
      expect(reads.length).toBeGreaterThan(0);
      expect(reads).toEqual(reads.map(() => 200));
      expect(ready).toEqual(ready.map(() => 200));

      const codes = attack.map((r: HttpResult) => `${r.status} ${r.body?.code}`);
      expect(codes.filter((c) => c !== '400 password_actual_incorrecto' && c !== '429 demasiados_intentos')).toEqual([]);
      // the caller's sign-in throttle (10 per username and IP) bounds what reaches bcrypt; the
      // overshoot is bounded by the attempts in flight in the database, never the whole burst
      const checked = codes.filter((c) => c.startsWith('400')).length;
      expect(checked).toBeGreaterThanOrEqual(10);
      expect(checked).toBeLessThan(10 + t.config.db.poolSize);

      const events = (await t.securityEvents('password.change')).filter((e) => Number(e.actor_user_id) === attacker.id);
      expect(events.filter((e) => e.failure_reason === 'invalid_password')).toHaveLength(checked);
      expect(events.filter((e) => e.failure_reason === 'too_many_attempts')).toHaveLength(40 - checked);
      // the same count throttles the attacker's sign-in from that address
      expectProblem(
        await t.post(LOGIN, { username: attacker.username, password: attacker.password }, { remoteAddress: ATTACKER_IP }),
        429,
        'demasiados_intentos',
      );
    });
  });

  describe('wrong current passwords count as failed sign-ins', () => {
    let t: TestApp;
    beforeAll(async () => (t = await TestApp.create()));
    afterAll(() => t.close());

    it('answers the 11th change from one address with 429 even with the right current password, and records each wrong one as password.change failure invalid_password', async () => {
      const user = await t.createUser('cajero');
      const ip = '10.8.0.1';
      for (let i = 0; i < 10; i++) {
        expectProblem(
          await t.put(
            CHANGE,
            { currentPassword: `Wrong-${i}-password`, newPassword: 'Otra-clave-segura-4' },
            { token: user.token, remoteAddress: ip },
          ),
          400,
          'password_actual_incorrecto',
        );
      }
      const res = await t.put(
        CHANGE,
        { currentPassword: user.password, newPassword: 'Otra-clave-segura-4' },
        { token: user.token, remoteAddress: ip },
      );
      expectProblem(res, 429, 'demasiados_intentos');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const events = (await t.securityEvents('password.change')).filter((e) => Number(e.actor_user_id) === user.id);
      expect(events.map((e) => `${e.result}/${e.failure_reason}`)).toEqual([
        'failure/too_many_attempts',
        ...Array(10).fill('failure/invalid_password'),
      ]);
      expect(events[0]).toMatchObject({ ip, attempted_username: user.username });
    });

    it('records password.change success on a change, and a right current password clears the count from that address', async () => {
      const user = await t.createUser('cajero');
      const ip = '10.8.0.2';
      for (let i = 0; i < 9; i++)
        await t.put(CHANGE, { currentPassword: 'Wrong-password-x', newPassword: 'Otra-clave-segura-5' }, { token: user.token, remoteAddress: ip });
      expect(
        (await t.put(CHANGE, { currentPassword: user.password, newPassword: 'Otra-clave-segura-5' }, { token: user.token, remoteAddress: ip }))
          .status,
      ).toBe(204);
      const [event] = (await t.securityEvents('password.change')).filter((e) => Number(e.actor_user_id) === user.id);
      expect(event).toMatchObject({ result: 'success', failure_reason: null });
      // the count from that address starts over: nine more failures and a sign-in still pass
      for (let i = 0; i < 9; i++) {
        expectProblem(
          await t.post(LOGIN, { username: user.username, password: 'Wrong-password-y' }, { remoteAddress: ip }),
          401,
          'credenciales_invalidas',
        );
      }
      expect((await t.post(LOGIN, { username: user.username, password: 'Otra-clave-segura-5' }, { remoteAddress: ip })).status).toBe(200);
    });
  });

  describe('request shapes are bounded before validation', () => {
    let t: TestApp, admin: string;
    beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
    afterAll(() => t.close());

    it('refuses three concurrent 70,000-key bodies with a short 400 validacion while /health/live keeps answering 200', async () => {
      const body = manyKeys(70_000);
      const attack = Promise.all(Array.from({ length: 3 }, () => t.request('POST', '/api/v1/users', { raw: body, token: admin })));
      const { attack: answers, victim } = await whileRunning(attack, () => t.get('/health/live'));
      for (const res of answers) {
        expectProblem(res, 400, 'validacion');
        expect(res.body.errors).toHaveLength(1);
        expect(res.text.length).toBeLessThan(2048);
      }
      expect(victim.map((r) => r.status)).toEqual(victim.map(() => 200));
    });

    it('refuses a sign-in body over 16 KiB with 413 before reading it as JSON, and counts no attempt', async () => {
      const res = await t.request('POST', LOGIN, { raw: manyKeys(70_000, { username: 'admin', password: 'x' }), remoteAddress: '10.6.0.1' });
      expectProblem(res, 413, 'payload_demasiado_grande');
      const padded = JSON.stringify({ username: 'admin', password: 'Whatever-123', pad: 'x'.repeat(17 * 1024) });
      expectProblem(await t.request('POST', LOGIN, { raw: padded, remoteAddress: '10.6.0.1' }), 413, 'payload_demasiado_grande');
      expect(await t.query('SELECT id FROM login_failures WHERE subject = $1', ['10.6.0.1'])).toHaveLength(0);
    });

    it('refuses a body over 1 MiB elsewhere with 413', async () => {
      const res = await t.request('POST', '/api/v1/admin/medios', {
        raw: JSON.stringify({ codigo: 'X', nombre: 'x'.repeat(1024 * 1024) }),
        token: admin,
      });
      expectProblem(res, 413, 'payload_demasiado_grande');
      expect(res.body.detail).toBe('El cuerpo de la solicitud es demasiado grande');
    });

    it('refuses more than 1,000 properties in all, nesting deeper than 32 and an array of more than 1,000 items with 400 validacion; the limits themselves pass to validation', async () => {
      const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const items = (n: number) => JSON.stringify({ permisos: Array.from({ length: n }, () => 'catalogo:rubros:gestionar') });
      const shape = async (raw: string, url = '/api/v1/admin/medios') =>
        t.request(url.startsWith('/api/v1/roles') ? 'PUT' : 'POST', url, { raw, token: admin });

      const tooMany = await shape(
        JSON.stringify({ codigo: 'A', nombre: 'b', nested: Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`k${i}`, i])) }),
      );
      expectProblem(tooMany, 400, 'validacion');
      expect(tooMany.body.errors).toEqual([{ field: 'body', code: 'maxProperties', message: expect.stringContaining('1000 propiedades') }]);
      expect((await shape(nested(33))).body.errors?.[0]?.message).toContain('32 niveles');
      expect((await shape(items(1001), '/api/v1/roles/supervisor/permisos')).body.errors?.[0]?.message).toContain('1000 elementos');

      // at the limits the body reaches validation (which then judges its fields)
      expect((await shape(nested(32))).body.errors?.[0]?.message).not.toContain('niveles');
      const thousand = await shape(items(1000), '/api/v1/roles/cajero/permisos');
      expectProblem(thousand, 400, 'validacion');
      expect(thousand.body.errors).toEqual([{ field: 'permisos', code: 'arrayMaxSize', message: expect.stringContaining('200') }]);
    });

    it('answers at most 20 field errors, however many fields are wrong', async () => {
      const res = await t.request('POST', '/api/v1/admin/medios', { raw: manyKeys(500), token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toHaveLength(20);
    });
  });
});
