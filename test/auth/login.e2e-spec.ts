import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import { ADMIN_PASSWORD, ADMIN_USERNAME, TestApp, expectProblem } from '../support/test-app.js';
import { lockRowSql, makeInsertsFail, raceWithHeldRows } from '../support/test-database.js';
import { AppMetrics } from '../../src/observability/metrics.js';
import { decodeJwt, sha256b64url, withoutCorrelation } from './support/auth-helpers.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOGIN = '/api/v1/auth/login';

describe('auth: login', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create()));
  afterAll(() => t.close());
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers a valid sign-in with both tokens, Bearer, expiresIn, username, mustChangePassword and the sorted effective permissions', async () => {
    const user = await t.createUser('auditor', { overrides: { granted: ['catalogo:rubros:gestionar'], denied: ['administracion:usuarios:ver'] } });
    const res = await t.post(LOGIN, { username: user.username, password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      tokenType: 'Bearer',
      expiresIn: 900,
      username: user.username,
      mustChangePassword: false,
      ultimoLogin: expect.any(String),
      permisos: ['administracion:auditoria:ver', 'administracion:roles:ver', 'catalogo:rubros:gestionar'],
    });
    expect(decodeJwt(res.body.accessToken).payload).not.toHaveProperty('permisos');
  });

  it('answers ultimoLogin with the previous sign-in time, null on a first sign-in', async () => {
    const first = await t.post(LOGIN, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
    expect(first.status).toBe(200);
    const [stored] = await t.query<{ ultimo_login: Date }>('SELECT ultimo_login FROM users WHERE username = $1', [ADMIN_USERNAME]);
    const second = await t.post(LOGIN, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
    expect(second.body.ultimoLogin).toBe(new Date(stored!.ultimo_login).toISOString());

    await t.query('UPDATE users SET ultimo_login = NULL WHERE username = $1', [ADMIN_USERNAME]);
    const fresh = await t.post(LOGIN, { username: ADMIN_USERNAME, password: ADMIN_PASSWORD });
    expect(fresh.body.ultimoLogin).toBeNull();
  });

  it('persists only the hash of the refresh token, with owner, family, expiry in REFRESH_TOKEN_DAYS, client IP and user agent', async () => {
    const user = await t.createUser('cajero');
    const before = Date.now();
    const res = await t.post(
      LOGIN,
      { username: user.username, password: user.password },
      { headers: { 'user-agent': 'login-test-agent/1.0' }, remoteAddress: '203.0.113.7' },
    );
    const rows = await t.query('SELECT * FROM refresh_tokens WHERE token_hash = $1', [sha256b64url(res.body.refreshToken)]);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(Number(row.user_id)).toBe(user.id);
    expect(row.family_id).toMatch(GUID);
    expect(row.revoked_at).toBeNull();
    expect(row.parent_id).toBeNull();
    expect(row.client_ip).toBe('203.0.113.7');
    expect(row.user_agent).toBe('login-test-agent/1.0');
    const expires = new Date(row.expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 7 * 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 1000);
  });

  it('records security event login success with the actor, the username, the session (family) id, the client IP and user agent', async () => {
    const user = await t.createUser('cajero');
    const res = await t.post(
      LOGIN,
      { username: user.username, password: user.password },
      { headers: { 'user-agent': 'event-agent' }, remoteAddress: '198.51.100.20' },
    );
    const [row] = await t.query('SELECT family_id FROM refresh_tokens WHERE token_hash = $1', [sha256b64url(res.body.refreshToken)]);
    const event = (await t.securityEvents('login')).find((e) => String(e.session_id).toLowerCase() === String(row.family_id).toLowerCase());
    expect(event).toMatchObject({
      result: 'success',
      actor_user_id: user.id,
      attempted_username: user.username,
      failure_reason: null,
      ip: '198.51.100.20',
      user_agent: 'event-agent',
    });
  });

  describe("a sign-in racing a change that ends the user's sessions", () => {
    /**
     * Holds the user's row as a deactivation or a password change does while it commits, until the
     * sign-in (its password already compared) waits on it; then writes `change` and commits.
     */
    const signInAcross = (userId: number, username: string, password: string, change: string) =>
      raceWithHeldRows(t.db, t.engine, {
        what: 'the sign-in',
        hold: (sql) => sql(lockRowSql(t.engine, 'users'), [userId]),
        request: () => t.post(LOGIN, { username, password }),
        meanwhile: (sql) => sql(change, [userId]),
      });
    const lastLoginFailure = async (userId: number) =>
      (await t.query("SELECT failure_reason FROM security_events WHERE action = 'login' AND actor_user_id = $1 ORDER BY id DESC", [userId]))[0]
        ?.failure_reason;
    const openSessions = async (userId: number) =>
      Number((await t.query('SELECT COUNT(*) AS n FROM sessions WHERE user_id = $1 AND ended_at IS NULL', [userId]))[0].n);

    it('opens no session once the password it verified was changed meanwhile (401, security event invalid_password)', async () => {
      const user = await t.createUser('cajero');
      const before = await openSessions(user.id);
      const other = await bcrypt.hash('Another-Password-42', 4);
      const res = await signInAcross(user.id, user.username, user.password, `UPDATE users SET password_hash = '${other}' WHERE id = $1`);
      expectProblem(res, 401, 'credenciales_invalidas');
      expect(await openSessions(user.id)).toBe(before);
      expect(await lastLoginFailure(user.id)).toBe('invalid_password');
    });

    it('opens no session once the user was deactivated meanwhile (401, security event user_inactive)', async () => {
      const user = await t.createUser('cajero');
      const before = await openSessions(user.id);
      const res = await signInAcross(
        user.id,
        user.username,
        user.password,
        `UPDATE users SET activo = ${t.engine === 'mssql' ? 0 : 'false'} WHERE id = $1`,
      );
      expectProblem(res, 401, 'credenciales_invalidas');
      expect(await openSessions(user.id)).toBe(before);
      expect(await lastLoginFailure(user.id)).toBe('user_inactive');
    });

    it('opens its session when what committed meanwhile left the user active with that password', async () => {
      const user = await t.createUser('cajero');
      const before = await openSessions(user.id);
      const res = await signInAcross(user.id, user.username, user.password, "UPDATE users SET nombre = 'Otro' WHERE id = $1");
      expect(res.status).toBe(200);
      expect(await openSessions(user.id)).toBe(before + 1);
    });
  });

  it('answers the same generic 401 credenciales_invalidas body for unknown user, inactive user and wrong password', async () => {
    const inactive = await t.createUser('cajero', { activo: false });
    const active = await t.createUser('cajero');
    const unknown = await t.post(LOGIN, { username: 'nobody_here', password: 'Whatever-123' });
    const deactivated = await t.post(LOGIN, { username: inactive.username, password: inactive.password });
    const wrong = await t.post(LOGIN, { username: active.username, password: `${active.password}x` });
    for (const res of [unknown, deactivated, wrong]) expectProblem(res, 401, 'credenciales_invalidas');
    expect(withoutCorrelation(deactivated)).toEqual(withoutCorrelation(unknown));
    expect(withoutCorrelation(wrong)).toEqual(withoutCorrelation(unknown));
    expect(unknown.text).not.toMatch(/user_not_found|user_inactive|invalid_password/);
  });

  it('records the internal reason of each failed sign-in only in security event login failure', async () => {
    const inactive = await t.createUser('cajero', { activo: false });
    const active = await t.createUser('cajero');
    await t.post(LOGIN, { username: 'ghost_user_1', password: 'Whatever-123' });
    await t.post(LOGIN, { username: inactive.username, password: inactive.password });
    await t.post(LOGIN, { username: active.username, password: 'wrong-password-1' });
    const failures = (await t.securityEvents('login')).filter((e) => e.result === 'failure');
    expect(failures.find((e) => e.attempted_username === 'ghost_user_1')).toMatchObject({ failure_reason: 'user_not_found', actor_user_id: null });
    expect(failures.find((e) => e.attempted_username === inactive.username)).toMatchObject({
      failure_reason: 'user_inactive',
      actor_user_id: inactive.id,
    });
    expect(failures.find((e) => e.attempted_username === active.username)).toMatchObject({
      failure_reason: 'invalid_password',
      actor_user_id: active.id,
    });
  });

  it('spends exactly one bcrypt compare on an unknown username (the dummy hash), as on a wrong password', async () => {
    const active = await t.createUser('cajero');
    const compare = jest.spyOn(bcrypt, 'compare');
    await t.post(LOGIN, { username: 'unknown_for_compare', password: 'Whatever-123' });
    expect(compare).toHaveBeenCalledTimes(1);
    compare.mockClear();
    await t.post(LOGIN, { username: active.username, password: 'wrong-password-2' });
    expect(compare).toHaveBeenCalledTimes(1);
  });

  describe('a hash of another cost than BCRYPT_ROUNDS (the setting changed since it was made)', () => {
    const hashOf = async (id: number) => (await t.query('SELECT password_hash FROM users WHERE id = $1', [id]))[0].password_hash as string;
    /** a user whose stored hash has cost 5; the tests run with BCRYPT_ROUNDS=4 */
    const userOfCost5 = async () => {
      const user = await t.createUser('cajero');
      await t.query('UPDATE users SET password_hash = $1 WHERE id = $2', [await bcrypt.hash(user.password, 5), user.id]);
      return user;
    };

    it('is replaced by one of the configured cost at the next sign-in, so its compares time like the dummy hash; the password stays', async () => {
      const user = await userOfCost5();
      expectProblem(await t.post(LOGIN, { username: user.username, password: 'wrong-password-3' }), 401, 'credenciales_invalidas');
      expect(bcrypt.getRounds(await hashOf(user.id))).toBe(5);

      expect((await t.post(LOGIN, { username: user.username, password: user.password })).status).toBe(200);
      const rehashed = await hashOf(user.id);
      expect(bcrypt.getRounds(rehashed)).toBe(4);
      expect(await bcrypt.compare(user.password, rehashed)).toBe(true);
      // a hash of the configured cost is kept as it is
      expect((await t.post(LOGIN, { username: user.username, password: user.password })).status).toBe(200);
      expect(await hashOf(user.id)).toBe(rehashed);
    });

    it('three sign-ins of the user at once all open their session, though the first replaced the hash the others compared', async () => {
      const user = await userOfCost5();
      const before = Number((await t.query('SELECT COUNT(*) AS n FROM sessions WHERE user_id = $1 AND ended_at IS NULL', [user.id]))[0].n);
      const signIn = () => t.post(LOGIN, { username: user.username, password: user.password });
      const answers = await raceWithHeldRows(t.db, t.engine, {
        what: 'the three sign-ins',
        hold: (sql) => sql(lockRowSql(t.engine, 'users'), [user.id]),
        request: () => Promise.all([signIn(), signIn(), signIn()]),
        waiting: 3,
      });
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(Number((await t.query('SELECT COUNT(*) AS n FROM sessions WHERE user_id = $1 AND ended_at IS NULL', [user.id]))[0].n)).toBe(before + 3);
      expect(bcrypt.getRounds(await hashOf(user.id))).toBe(4);
    });
  });

  it('uses the password exactly as sent: surrounding spaces are part of it, never trimmed', async () => {
    const user = await t.createUser('cajero', { password: '  Spaced-Password-9  ' });
    expect((await t.post(LOGIN, { username: user.username, password: '  Spaced-Password-9  ' })).status).toBe(200);
    expectProblem(await t.post(LOGIN, { username: user.username, password: 'Spaced-Password-9' }), 401, 'credenciales_invalidas');
  });

  it('rejects a password over 72 bytes (UTF-8) with 400 validacion instead of truncating it', async () => {
    const user = await t.createUser('cajero');
    expectProblem(await t.post(LOGIN, { username: user.username, password: 'a'.repeat(73) }), 400, 'validacion');
    // 37 characters, 74 bytes
    expectProblem(await t.post(LOGIN, { username: user.username, password: 'ñ'.repeat(37) }), 400, 'validacion');
    // exactly 72 bytes is a password like any other (wrong here)
    expectProblem(await t.post(LOGIN, { username: user.username, password: 'a'.repeat(72) }), 401, 'credenciales_invalidas');
  });

  it('answers a missing or non-string username or password with 400 validacion', async () => {
    expectProblem(await t.post(LOGIN, { username: 'admin' }), 400, 'validacion');
    expectProblem(await t.post(LOGIN, { password: 'x' }), 400, 'validacion');
    expectProblem(await t.post(LOGIN, { username: 'admin', password: 12345 }), 400, 'validacion');
  });

  it('carries the correlation id in the header and in the body of the 401', async () => {
    const res = await t.post(
      LOGIN,
      { username: 'nobody_corr', password: 'Whatever-123' },
      { headers: { 'x-correlation-id': '0f8fad5b-d9cb-469f-a165-70867728950e' } },
    );
    expect(res.headers['x-correlation-id']).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(res.body.correlationId).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
  });

  it('does not count a sign-in whose security event could not be written as a success: it answered 500 and gave no token', async () => {
    const user = await t.createUser('cajero');
    const metrics = t.app.get(AppMetrics);
    const value = async (
      counter: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> },
      labels: Record<string, string>,
    ) => (await counter.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
    const successes = await value(metrics.loginAttempts, { result: 'success', reason: 'none' });
    const failures = await value(metrics.auditWriteFailures, { store: 'security_events' });
    const restore = await makeInsertsFail(t.db, t.engine, 'security_events', 'security store unavailable');
    try {
      const res = await t.post(LOGIN, { username: user.username, password: user.password });
      expectProblem(res, 500, 'error_interno');
      expect(res.body.accessToken).toBeUndefined();
    } finally {
      await restore();
    }
    expect(await value(metrics.loginAttempts, { result: 'success', reason: 'none' })).toBe(successes);
    expect(await value(metrics.auditWriteFailures, { store: 'security_events' })).toBe(failures + 1);
    // written, it counts
    expect((await t.post(LOGIN, { username: user.username, password: user.password })).status).toBe(200);
    expect(await value(metrics.loginAttempts, { result: 'success', reason: 'none' })).toBe(successes + 1);
  });
});
