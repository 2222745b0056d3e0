import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type CreatedUser, TestApp, expectProblem } from '../support/test-app.js';
import { PROBE_GUARDED, ProbeModule, TokenForge, appWithForge, decodeJwt } from './support/auth-helpers.js';

const ME = '/api/v1/auth/me';
const LOGOUT = '/api/v1/auth/logout';
const REFRESH = '/api/v1/auth/refresh';
const MY_SESSIONS = '/api/v1/auth/sessions';
const userSessions = (userId: number) => `/api/v1/users/${userId}/sessions`;

const sidOf = (accessToken: string) => decodeJwt(accessToken).payload.sid as string;

/**
 * A session is one sign-in and its refreshes (a refresh-token family). Every way a session ends
 * must kill its access tokens at once — on a permission-guarded route and on /auth/me — and its
 * refresh token, even though the access token has not expired.
 */
describe('auth: sessions and token liveness', () => {
  let t: TestApp, forge: TokenForge;
  beforeAll(async () => ({ t, forge } = await appWithForge({ extraModules: [ProbeModule] })));
  afterAll(() => t.close());

  /** A user holding the probe's permission (auditor), signed in once. */
  const newUser = () => t.createUser('auditor');

  const expectAlive = async (accessToken: string) => {
    expect((await t.get(PROBE_GUARDED, { token: accessToken })).status).toBe(200);
    expect((await t.get(ME, { token: accessToken })).status).toBe(200);
  };

  /** The old access token refused on a guarded route and on /auth/me, and its refresh token refused. */
  const expectDead = async (pair: { token: string; refreshToken: string }) => {
    expectProblem(await t.get(PROBE_GUARDED, { token: pair.token }), 401, 'no_autenticado');
    expectProblem(await t.get(ME, { token: pair.token }), 401, 'no_autenticado');
    expectProblem(await t.post(REFRESH, { accessToken: pair.token, refreshToken: pair.refreshToken }), 401, 'refresh_invalido');
  };

  const secondSession = async (user: CreatedUser) => {
    const { accessToken, refreshToken } = await t.login(user.username, user.password);
    return { token: accessToken, refreshToken };
  };

  describe('each way a session ends refuses its access token at once and its refresh token', () => {
    it('logout', async () => {
      const user = await newUser();
      await expectAlive(user.token);
      expect((await t.post(LOGOUT, undefined, { token: user.token })).status).toBe(204);
      await expectDead(user);
    });

    it('ending one of my sessions (DELETE /auth/sessions/{id}) ends that one only', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      expect((await t.delete(`${MY_SESSIONS}/${sidOf(other.token)}`, { token: user.token })).status).toBe(204);
      await expectDead(other);
      await expectAlive(user.token);
    });

    it('ending my current session signs out this device only', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      expect((await t.delete(`${MY_SESSIONS}/${sidOf(user.token)}`, { token: user.token })).status).toBe(204);
      await expectDead(user);
      await expectAlive(other.token);
    });

    it("an administrator's revocation (DELETE /users/{id}/sessions/{sessionId}) ends that session only", async () => {
      const user = await newUser();
      const other = await secondSession(user);
      const res = await t.delete(`${userSessions(user.id)}/${sidOf(user.token)}`, { token: await t.adminToken() });
      expect(res.status).toBe(204);
      await expectDead(user);
      await expectAlive(other.token);
    });

    it('refresh-token reuse detection ends the session: the rotated pair dies with the old one', async () => {
      const user = await newUser();
      const rotated = await t.post(REFRESH, { accessToken: user.token, refreshToken: user.refreshToken });
      expect(rotated.status).toBe(200);
      expect(sidOf(rotated.body.accessToken)).toBe(sidOf(user.token));
      await expectAlive(rotated.body.accessToken);
      // the already-rotated refresh token comes back: theft is assumed, the session ends
      expectProblem(await t.post(REFRESH, { accessToken: user.token, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
      await expectDead({ token: rotated.body.accessToken, refreshToken: rotated.body.refreshToken });
      await expectDead(user);
    });

    it('a user update by an administrator', async () => {
      const user = await newUser();
      const res = await t.put(
        `/api/v1/users/${user.id}`,
        { nombre: 'Renamed', apellido: 'User', email: 'renamed@example.test', rol: 'auditor' },
        { token: await t.adminToken() },
      );
      expect(res.status).toBe(200);
      await expectDead(user);
    });

    it('deactivation, and the reactivation that follows revives no old token', async () => {
      const user = await newUser();
      const admin = await t.adminToken();
      expect((await t.post(`/api/v1/users/${user.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      await expectDead(user);
      expect((await t.post(`/api/v1/users/${user.id}/reactivate`, undefined, { token: admin })).status).toBe(200);
      await expectDead(user);
      // signing in again opens a new, working session
      const again = await secondSession(user);
      await expectAlive(again.token);
      expect(sidOf(again.token)).not.toBe(sidOf(user.token));
    });

    it('my own password change ends every session of mine, the one that made the change too', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      const res = await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Otra-Clave-2026' }, { token: user.token });
      expect(res.status).toBe(204);
      await expectDead(user);
      await expectDead(other);
    });

    it("an administrator's password reset", async () => {
      const user = await newUser();
      const res = await t.post(`/api/v1/users/${user.id}/password-reset`, undefined, { token: await t.adminToken() });
      expect(res.status).toBe(200);
      await expectDead(user);
    });

    it('expiry: a session whose refresh token has expired refuses its access tokens and is not listed', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      await t.query('UPDATE sessions SET expires_at = $1 WHERE id = $2', [new Date(Date.now() - 60_000), sidOf(user.token)]);
      expectProblem(await t.get(ME, { token: user.token }), 401, 'no_autenticado');
      const list = await t.get(MY_SESSIONS, { token: other.token });
      expect(list.body.map((s: { id: string }) => s.id)).toEqual([sidOf(other.token)]);
    });
  });

  describe('logout stays idempotent', () => {
    it('answers 204 again to the same, now ended, token and then ends nothing: a session opened since stays open', async () => {
      const user = await newUser();
      expect((await t.post(LOGOUT, undefined, { token: user.token })).status).toBe(204);
      const later = await secondSession(user);
      expect((await t.post(LOGOUT, undefined, { token: user.token })).status).toBe(204);
      await expectAlive(later.token);
      const events = (await t.securityEvents('logout')).filter((e) => e.actor_user_id === user.id);
      expect(events.map((e) => [e.session_id, e.metadata.revokedTokens])).toEqual([
        [sidOf(user.token), 0],
        [sidOf(user.token), 1],
      ]);
    });

    it('is the only route that lets the ended session through: every other route refuses it', async () => {
      const user = await newUser();
      await t.post(LOGOUT, undefined, { token: user.token });
      expectProblem(await t.get(MY_SESSIONS, { token: user.token }), 401, 'no_autenticado');
      expectProblem(await t.delete(`${MY_SESSIONS}/${sidOf(user.token)}`, { token: user.token }), 401, 'no_autenticado');
      expectProblem(
        await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Otra-Clave-2026' }, { token: user.token }),
        401,
        'no_autenticado',
      );
    });

    it('still refuses a deactivated user, and a token without a session', async () => {
      const user = await newUser();
      const noSid = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }, { sid: undefined }));
      expectProblem(await t.post(LOGOUT, undefined, { token: noSid }), 401, 'no_autenticado');
      await t.query('UPDATE users SET activo = $1 WHERE id = $2', [false, user.id]);
      expectProblem(await t.post(LOGOUT, undefined, { token: user.token }), 401, 'no_autenticado');
    });
  });

  describe('listing sessions', () => {
    it('lists my active sessions, newest lastUsedAt first, with current marking the one of this token', async () => {
      const user = await t.createUser('cajero');
      const other = await secondSession(user);
      const ended = await secondSession(user);
      await t.delete(`${MY_SESSIONS}/${sidOf(ended.token)}`, { token: user.token });

      const res = await t.get(MY_SESSIONS, { token: user.token, headers: { 'user-agent': 'lister' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([
        {
          id: sidOf(other.token),
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          expiresAt: expect.any(String),
          ip: '127.0.0.1',
          userAgent: 'lightMyRequest',
          current: false,
        },
        {
          id: sidOf(user.token),
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
          expiresAt: expect.any(String),
          ip: '127.0.0.1',
          userAgent: 'lightMyRequest',
          current: true,
        },
      ]);
      const [newest, oldest] = res.body;
      expect(Date.parse(newest.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(oldest.lastUsedAt));
      expect(Date.parse(oldest.expiresAt) - Date.parse(oldest.createdAt)).toBe(t.config.refreshTokenDays * 86_400_000);
    });

    it('answers at most the 100 most recently used sessions, however many are active', async () => {
      const user = await t.createUser('cajero');
      // sessions of earlier sign-ins, last used before this token's own
      const now = Date.now();
      const seeded = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      for (let n = 1; n <= 150; n++) {
        await t.query('INSERT INTO sessions (id, user_id, created_at, last_used_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
          seeded(n),
          user.id,
          new Date(now - 86_400_000),
          new Date(now - n * 60_000),
          new Date(now + 86_400_000),
        ]);
      }
      const own = await t.get(MY_SESSIONS, { token: user.token });
      expect(own.body).toHaveLength(100);
      expect(own.body[0]).toMatchObject({ id: sidOf(user.token), current: true });
      expect(own.body[99].id).toBe(seeded(99));
      expect((await t.get(`/api/v1/users/${user.id}/sessions`, { token: await t.adminToken() })).body).toHaveLength(100);
    });

    it('moves lastUsedAt, expiresAt, ip and userAgent on refresh, and not on ordinary requests', async () => {
      const user = await t.createUser('cajero');
      const other = await secondSession(user);
      const before = (await t.get(MY_SESSIONS, { token: other.token })).body.find((s: { id: string }) => s.id === sidOf(user.token));
      await t.get(ME, { token: user.token });
      await t.get(ME, { token: user.token });
      const untouched = (await t.get(MY_SESSIONS, { token: other.token })).body.find((s: { id: string }) => s.id === sidOf(user.token));
      expect(untouched).toEqual(before);

      const rotated = await t.post(REFRESH, { accessToken: user.token, refreshToken: user.refreshToken }, { headers: { 'user-agent': 'refresher' } });
      expect(rotated.status).toBe(200);
      const res = await t.get(MY_SESSIONS, { token: other.token });
      expect(res.body[0]).toMatchObject({ id: sidOf(user.token), userAgent: 'refresher', createdAt: before.createdAt, current: false });
      expect(Date.parse(res.body[0].lastUsedAt)).toBeGreaterThan(Date.parse(before.lastUsedAt));
      expect(Date.parse(res.body[0].expiresAt)).toBeGreaterThan(Date.parse(before.expiresAt));
    });

    it("lets an administrator list a user's active sessions; 404 for an unknown user; 403 without administracion:usuarios:gestionar", async () => {
      const user = await t.createUser('cajero');
      const other = await secondSession(user);
      const res = await t.get(userSessions(user.id), { token: await t.adminToken() });
      expect(res.status).toBe(200);
      expect(res.body.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual([
        [sidOf(other.token), false],
        [sidOf(user.token), false],
      ]);
      expectProblem(await t.get(userSessions(999_999), { token: await t.adminToken() }), 404, 'no_encontrado');
      const viewer = await t.createUser('auditor');
      expectProblem(await t.get(userSessions(user.id), { token: viewer.token }), 403, 'permiso_denegado');
      expectProblem(await t.delete(`${userSessions(user.id)}/${sidOf(user.token)}`, { token: viewer.token }), 403, 'permiso_denegado');
    });
  });

  describe('ending a session that is not mine, unknown or already ended', () => {
    it("answers 404 to another user's session id and leaves that session alone", async () => {
      const [me, victim] = [await newUser(), await newUser()];
      expectProblem(await t.delete(`${MY_SESSIONS}/${sidOf(victim.token)}`, { token: me.token }), 404, 'no_encontrado');
      await expectAlive(victim.token);
    });

    it('answers 404 to an unknown session id and 400 to one that is not a UUID', async () => {
      const user = await newUser();
      expectProblem(await t.delete(`${MY_SESSIONS}/${randomUUID()}`, { token: user.token }), 404, 'no_encontrado');
      expectProblem(await t.delete(`${MY_SESSIONS}/not-a-uuid`, { token: user.token }), 400, 'validacion');
      await expectAlive(user.token);
    });

    it('answers 204 to ending one of my sessions that has already ended', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      expect((await t.delete(`${MY_SESSIONS}/${sidOf(other.token)}`, { token: user.token })).status).toBe(204);
      expect((await t.delete(`${MY_SESSIONS}/${sidOf(other.token)}`, { token: user.token })).status).toBe(204);
      await expectAlive(user.token);
    });

    it('answers an administrator 404 for a session of another user, an unknown session or an unknown user, ending nothing', async () => {
      const [user, bystander] = [await newUser(), await newUser()];
      const admin = await t.adminToken();
      expectProblem(await t.delete(`${userSessions(user.id)}/${sidOf(bystander.token)}`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.delete(`${userSessions(user.id)}/${randomUUID()}`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.delete(`${userSessions(999_999)}/${sidOf(user.token)}`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.delete(`${userSessions(user.id)}/xyz`, { token: admin }), 400, 'validacion');
      await expectAlive(user.token);
      await expectAlive(bystander.token);
      expect(await t.auditEvents({ action: 'usuario.session_revoke', targetId: String(user.id) })).toHaveLength(0);
    });
  });

  describe("the administrator's revocation is audited", () => {
    it('records usuario.session_revoke, target the user, metadata exactly {sessionId}, once even when repeated', async () => {
      const user = await newUser();
      const admin = await t.adminToken();
      const url = `${userSessions(user.id)}/${sidOf(user.token).toUpperCase()}`;
      expect((await t.delete(url, { token: admin })).status).toBe(204);
      expect((await t.delete(url, { token: admin })).status).toBe(204);
      const events = await t.auditEvents({ action: 'usuario.session_revoke', targetId: String(user.id) });
      expect(events).toHaveLength(1);
      const [adminRow] = await t.query('SELECT id FROM users WHERE username = $1', ['admin']);
      expect(events[0]).toMatchObject({ target_type: 'usuario', target_id: String(user.id), actor_user_id: adminRow.id });
      expect(events[0].metadata).toEqual({ sessionId: sidOf(user.token) });
    });

    it('records no audit event for a user ending its own session, but the security event logout naming that session, once', async () => {
      const user = await newUser();
      const other = await secondSession(user);
      await t.delete(`${MY_SESSIONS}/${sidOf(other.token)}`, { token: user.token });
      await t.delete(`${MY_SESSIONS}/${sidOf(other.token)}`, { token: user.token });
      expect(await t.auditEvents({ action: 'usuario.session_revoke', targetId: String(user.id) })).toHaveLength(0);
      const events = (await t.securityEvents('logout')).filter((e) => e.actor_user_id === user.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ result: 'success', session_id: sidOf(other.token), metadata: { revokedTokens: 1 } });
    });
  });

  describe('tokens must name a live session of their user (sid)', () => {
    const cases: Array<[string, (user: CreatedUser, other: CreatedUser) => unknown]> = [
      ['no sid claim', () => undefined],
      ['a sid that is not a UUID', () => 'not-a-uuid'],
      ['a sid that is a number', () => 42],
      ['a sid of no session', () => randomUUID()],
      ["a sid of another user's live session", (_user, other) => sidOf(other.token)],
    ];
    it.each(cases)('refuses a validly signed token with %s (401 on a guarded route and on /auth/me)', async (_name, sid) => {
      const [user, other] = [await newUser(), await newUser()];
      const token = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }, { sid: sid(user, other) }));
      expectProblem(await t.get(PROBE_GUARDED, { token }), 401, 'no_autenticado');
      expectProblem(await t.get(ME, { token }), 401, 'no_autenticado');
      await expectAlive(user.token);
    });

    it('accepts the same token with its real sid, in any letter case (control)', async () => {
      const user = await newUser();
      const claims = forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token });
      await expectAlive(forge.rs256(claims));
      await expectAlive(forge.rs256({ ...claims, sid: sidOf(user.token).toUpperCase() }));
    });
  });
});
