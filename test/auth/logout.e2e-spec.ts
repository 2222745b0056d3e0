import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp, expectProblem } from '../support/test-app.js';
import { TokenForge, appWithForge } from './support/auth-helpers.js';

const LOGOUT = '/api/v1/auth/logout';

describe('auth: logout', () => {
  let t: TestApp, forge: TokenForge;
  beforeAll(async () => ({ t, forge } = await appWithForge()));
  afterAll(() => t.close());

  const activeTokens = async (userId: number) => t.query('SELECT id FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [userId]);

  it('answers 204 and revokes every active refresh token of the caller (every session), with reason logout', async () => {
    const user = await t.createUser('cajero');
    await t.login(user.username, user.password); // a second session
    expect(await activeTokens(user.id)).toHaveLength(2);
    const res = await t.post(LOGOUT, undefined, { token: user.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await activeTokens(user.id)).toHaveLength(0);
    const reasons = await t.query<{ revoked_reason: string }>('SELECT revoked_reason FROM refresh_tokens WHERE user_id = $1', [user.id]);
    expect(reasons.map((r) => r.revoked_reason)).toEqual(['logout', 'logout']);
  });

  it("leaves other users' sessions alone", async () => {
    const user = await t.createUser('cajero');
    const other = await t.createUser('cajero');
    await t.post(LOGOUT, undefined, { token: user.token });
    expect(await activeTokens(other.id)).toHaveLength(1);
  });

  it('is idempotent: signing out twice answers 204 both times', async () => {
    const user = await t.createUser('cajero');
    expect((await t.post(LOGOUT, undefined, { token: user.token })).status).toBe(204);
    expect((await t.post(LOGOUT, undefined, { token: user.token })).status).toBe(204);
    expect(await activeTokens(user.id)).toHaveLength(0);
  });

  it('answers 204 to a token whose session its user ended from the session list, and 401 to one an administrator revoked', async () => {
    const sid = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sid as string;
    const user = await t.createUser('cajero');
    const other = await t.login(user.username, user.password); // a second session, still open at the end
    const own = await t.login(user.username, user.password);
    expect((await t.request('DELETE', `/api/v1/auth/sessions/${sid(own.accessToken)}`, { token: own.accessToken })).status).toBe(204);
    expect((await t.post(LOGOUT, undefined, { token: own.accessToken })).status).toBe(204);
    expect(await activeTokens(user.id)).toHaveLength(2); // the repeat changed nothing
    const admin = await t.adminToken();
    expect((await t.request('DELETE', `/api/v1/users/${user.id}/sessions/${sid(user.token)}`, { token: admin })).status).toBe(204);
    // signing out with the revoked session's token would say "signed out everywhere" and change nothing
    expectProblem(await t.post(LOGOUT, undefined, { token: user.token }), 401, 'no_autenticado');
    expect(await activeTokens(user.id)).toHaveLength(1);
    expect((await t.get('/api/v1/auth/me', { token: other.accessToken })).status).toBe(200);
  });

  it('records security event logout success with the actor, each time', async () => {
    const user = await t.createUser('cajero');
    await t.post(LOGOUT, undefined, { token: user.token });
    await t.post(LOGOUT, undefined, { token: user.token });
    const events = (await t.securityEvents('logout')).filter((e) => e.actor_user_id === user.id);
    expect(events).toHaveLength(2);
    for (const e of events) expect(e).toMatchObject({ result: 'success', failure_reason: null });
    expect(events.map((e) => e.metadata.revokedTokens).sort()).toEqual([0, 1]);
  });

  it('makes the refresh token unusable: refreshing after logout is 401 refresh_invalido', async () => {
    const user = await t.createUser('cajero');
    await t.post(LOGOUT, undefined, { token: user.token });
    expectProblem(await t.post('/api/v1/auth/refresh', { accessToken: user.token, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
  });

  it('answers 401 without an access token', async () => {
    expectProblem(await t.post(LOGOUT), 401, 'no_autenticado');
  });

  it('answers 401 to a validly signed token without a readable sub, and revokes nothing', async () => {
    const user = await t.createUser('cajero');
    const base = { id: user.id, username: user.username, rol: 'cajero', token: user.token };
    for (const sub of [undefined, 'abc', '', '0', '-1', '1.5', user.id]) {
      expectProblem(await t.post(LOGOUT, undefined, { token: forge.rs256(forge.claims(base, { sub })) }), 401, 'no_autenticado');
    }
    expect(await activeTokens(user.id)).toHaveLength(1);
  });
});
