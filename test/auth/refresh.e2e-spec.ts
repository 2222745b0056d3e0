import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { lockRowSql, raceWithHeldRows } from '../support/test-database.js';
import { REPEATS_PER_MINUTE } from '../../src/audit/security-events.service.js';
import { FixedClock } from '../../src/common/context/clock.js';
import { RefreshTokensService } from '../../src/auth/refresh-tokens.service.js';
import { AppMetrics } from '../../src/observability/metrics.js';
import { type CreatedUser, TestApp, expectProblem } from '../support/test-app.js';
import { TokenForge, appWithForge, dumpAllTables, sha256b64url, withoutCorrelation } from './support/auth-helpers.js';

const REFRESH = '/api/v1/auth/refresh';
const DAY_MS = 86_400_000;

describe('auth: refresh-token rotation and reuse detection', () => {
  let t: TestApp, forge: TokenForge;
  const clock = new FixedClock(new Date());

  beforeAll(async () => ({ t, forge } = await appWithForge({ clock })));
  afterAll(() => t.close());

  // family ids compared in lower case: SQL Server returns uniqueidentifier values in upper case
  const tokenRow = async (refreshToken: string) => {
    const [row] = await t.query('SELECT * FROM refresh_tokens WHERE token_hash = $1', [sha256b64url(refreshToken)]);
    return row && { ...row, family_id: String(row.family_id).toLowerCase() };
  };
  const familyRows = async (familyId: string) => t.query('SELECT * FROM refresh_tokens WHERE family_id = $1 ORDER BY id', [familyId]);
  const eventsOfFamily = async (action: string, familyId: string) =>
    (await t.securityEvents(action)).filter((e) => String(e.session_id).toLowerCase() === familyId);
  const refresh = (u: { token: string; refreshToken: string }) => t.post(REFRESH, { accessToken: u.token, refreshToken: u.refreshToken });

  it('rotates: answers a new pair, the new access token works and the presented refresh token is revoked as rotated', async () => {
    const user = await t.createUser('cajero');
    const res = await refresh(user);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });
    expect(res.body.refreshToken).not.toBe(user.refreshToken);
    expect((await t.get('/api/v1/auth/me', { token: res.body.accessToken })).body.username).toBe(user.username);

    const old = await tokenRow(user.refreshToken);
    const next = await tokenRow(res.body.refreshToken);
    expect(old.revoked_at).not.toBeNull();
    expect(old.revoked_reason).toBe('rotated');
    expect(next).toMatchObject({ family_id: old.family_id, revoked_at: null });
    expect(Number(next.parent_id)).toBe(Number(old.id));
    expect(Number(next.user_id)).toBe(user.id);
  });

  it('records security event refresh.issue success with the actor and the family id', async () => {
    const user = await t.createUser('cajero');
    await refresh(user);
    const { family_id } = await tokenRow(user.refreshToken);
    const [event] = await eventsOfFamily('refresh.issue', family_id);
    expect(event).toMatchObject({ result: 'success', actor_user_id: user.id, failure_reason: null });
    expect(event.metadata).toEqual({ familyId: family_id });
  });

  it('refuses the old refresh token after rotation with the generic 401 refresh_invalido', async () => {
    const user = await t.createUser('cajero');
    expect((await refresh(user)).status).toBe(200);
    expectProblem(await refresh(user), 401, 'refresh_invalido');
  });

  it('answers the generic 401 refresh_invalido, not 400, for tokens holding a NUL or a lone surrogate', async () => {
    const user = await t.createUser('cajero');
    for (const bad of ['a\u0000b', '\ud800', 'x\udc00y']) {
      expectProblem(await t.post(REFRESH, { accessToken: user.token, refreshToken: bad }), 401, 'refresh_invalido');
      expectProblem(await t.post(REFRESH, { accessToken: bad, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    }
    // the genuine pair still works: the refusals consumed nothing
    expect((await refresh(user)).status).toBe(200);
  });

  it('revokes the whole chain when a rotated token is presented again, so the newest token fails too', async () => {
    const user = await t.createUser('cajero');
    const second = await refresh(user);
    const third = await t.post(REFRESH, { accessToken: second.body.accessToken, refreshToken: second.body.refreshToken });
    expect(third.status).toBe(200);

    expectProblem(await t.post(REFRESH, { accessToken: third.body.accessToken, refreshToken: second.body.refreshToken }), 401, 'refresh_invalido');

    const { family_id } = await tokenRow(user.refreshToken);
    const chain = await familyRows(family_id);
    expect(chain).toHaveLength(3);
    expect(chain.every((r) => r.revoked_at !== null)).toBe(true);
    expect(chain[2].revoked_reason).toBe('reuse_detected');
    expectProblem(await t.post(REFRESH, { accessToken: third.body.accessToken, refreshToken: third.body.refreshToken }), 401, 'refresh_invalido');
  });

  it('records security event refresh.reuse_detected failure with the family id in metadata', async () => {
    const user = await t.createUser('cajero');
    await refresh(user);
    await refresh(user);
    const { family_id } = await tokenRow(user.refreshToken);
    const [event] = await eventsOfFamily('refresh.reuse_detected', family_id);
    expect(event).toMatchObject({ result: 'failure', actor_user_id: user.id });
    expect(event.metadata).toMatchObject({ familyId: family_id });
  });

  it('keeps the family revoked although the reuse is answered with 401 (committed before answering)', async () => {
    const user = await t.createUser('cajero');
    const next = await refresh(user);
    await refresh(user); // reuse
    const row = await tokenRow(next.body.refreshToken);
    expect(row.revoked_at).not.toBeNull();
    expect(row.revoked_reason).toBe('reuse_detected');
  });

  it('treats a token revoked by logout as reuse when it is presented again: 401 and refresh.reuse_detected', async () => {
    const user = await t.createUser('cajero');
    expect((await t.post('/api/v1/auth/logout', undefined, { token: user.token })).status).toBe(204);
    expectProblem(await refresh(user), 401, 'refresh_invalido');
    const { family_id } = await tokenRow(user.refreshToken);
    expect(await eventsOfFamily('refresh.reuse_detected', family_id)).toHaveLength(1);
  });

  it('waits for a sign-out that holds the session, instead of deadlocking with it: the sign-out commits, the refresh is 401', async () => {
    const user = await t.createUser('cajero');
    const { family_id } = await tokenRow(user.refreshToken);
    // what revokeAllForUser and endSession do, in their order: the session's row, then its tokens
    const refreshed = await raceWithHeldRows(t.db, t.engine, {
      what: 'the refresh',
      hold: (sql) => sql('UPDATE sessions SET ended_at = $1, ended_reason = $2 WHERE id = $3', [new Date(), 'logout', family_id]),
      request: () => refresh(user),
      meanwhile: (sql) =>
        sql('UPDATE refresh_tokens SET revoked_at = $1, revoked_reason = $2 WHERE family_id = $3 AND revoked_at IS NULL', [
          new Date(),
          'logout',
          family_id,
        ]),
    });
    expectProblem(refreshed, 401, 'refresh_invalido');
    expect((await familyRows(family_id)).every((row) => row.revoked_at !== null)).toBe(true);
  });

  it('waits for a change of the user that holds the user row, instead of deadlocking with it: the change commits, the refresh is 401', async () => {
    const user = await t.createUser('cajero');
    const { family_id } = await tokenRow(user.refreshToken);
    // what an update, a deactivation or a password change does: the user's row first, then the
    // sessions and the tokens (revokeAllForUser)
    const refreshed = await raceWithHeldRows(t.db, t.engine, {
      what: 'the refresh',
      hold: (sql) => sql(lockRowSql(t.engine, 'users'), [user.id]),
      request: () => refresh(user),
      meanwhile: async (sql) => {
        await sql('UPDATE sessions SET ended_at = $1, ended_reason = $2 WHERE user_id = $3 AND ended_at IS NULL', [
          new Date(),
          'user_updated',
          user.id,
        ]);
        await sql('UPDATE refresh_tokens SET revoked_at = $1, revoked_reason = $2 WHERE user_id = $3 AND revoked_at IS NULL', [
          new Date(),
          'user_updated',
          user.id,
        ]);
      },
    });
    expectProblem(refreshed, 401, 'refresh_invalido');
    expect((await familyRows(family_id)).every((row) => row.revoked_at !== null)).toBe(true);
  });

  it('refuses an expired refresh token with 401, leaves it unchanged and records refresh.issue failure token_expired', async () => {
    const user = await t.createUser('cajero');
    const start = clock.now();
    clock.advance(7 * DAY_MS + 1000);
    try {
      expectProblem(await refresh(user), 401, 'refresh_invalido');
    } finally {
      clock.set(start);
    }
    const row = await tokenRow(user.refreshToken);
    expect(row.revoked_at).toBeNull();
    const [event] = await eventsOfFamily('refresh.issue', row.family_id);
    expect(event).toMatchObject({ result: 'failure', failure_reason: 'token_expired', actor_user_id: user.id });
  });

  it('still accepts a refresh token shortly before its expiry', async () => {
    const user = await t.createUser('cajero');
    const start = clock.now();
    clock.advance(7 * DAY_MS - 60_000);
    try {
      expect((await refresh(user)).status).toBe(200);
    } finally {
      clock.set(start);
    }
  });

  it("refuses a refresh token presented with another user's access token (sub mismatch): 401, unchanged, refresh.issue failure sub_mismatch naming the family's owner as actor and the presenting sub in metadata", async () => {
    const owner = await t.createUser('cajero');
    const other = await t.createUser('cajero');
    expectProblem(await t.post(REFRESH, { accessToken: other.token, refreshToken: owner.refreshToken }), 401, 'refresh_invalido');
    const row = await tokenRow(owner.refreshToken);
    expect(row.revoked_at).toBeNull();
    const [event] = await eventsOfFamily('refresh.issue', row.family_id);
    expect(event).toMatchObject({ result: 'failure', failure_reason: 'sub_mismatch', actor_user_id: owner.id });
    expect(event.metadata).toMatchObject({ familyId: row.family_id, sub: String(other.id) });
    expect((await refresh(owner)).status).toBe(200);
  });

  it('refuses the refresh of an inactive user: 401, unchanged, refresh.issue failure user_inactive', async () => {
    const user = await t.createUser('cajero');
    await t.query('UPDATE users SET activo = $1 WHERE id = $2', [false, user.id]);
    expectProblem(await refresh(user), 401, 'refresh_invalido');
    const row = await tokenRow(user.refreshToken);
    expect(row.revoked_at).toBeNull();
    const [event] = await eventsOfFamily('refresh.issue', row.family_id);
    expect(event).toMatchObject({ result: 'failure', failure_reason: 'user_inactive' });
  });

  it('refuses the refresh of a user that no longer exists: 401, refresh.issue failure user_not_found', async () => {
    const user = await t.createUser('cajero');
    const { family_id } = await tokenRow(user.refreshToken);
    // the schema forbids deleting a user that owns tokens or sessions; simulate a user removed behind our back
    const fks = await t.query<{ name: string; t: string }>(
      `SELECT constraint_name AS name, table_name AS t FROM information_schema.table_constraints
        WHERE table_name IN ('refresh_tokens', 'sessions') AND constraint_type = 'FOREIGN KEY'`,
    );
    for (const fk of fks) await t.query(`ALTER TABLE ${fk.t} DROP CONSTRAINT ${fk.name}`);
    await t.query('DELETE FROM users WHERE id = $1', [user.id]);
    expectProblem(await refresh(user), 401, 'refresh_invalido');
    const [event] = await eventsOfFamily('refresh.issue', family_id);
    expect(event).toMatchObject({ result: 'failure', failure_reason: 'user_not_found' });
  });

  it('revokes the user\'s refresh tokens when the user is updated (row "updating the user"), so refreshing is then 401', async () => {
    const user = await t.createUser('cajero');
    const update = await t.put(
      `/api/v1/users/${user.id}`,
      { nombre: 'Renamed', apellido: 'User', email: 'renamed@example.test', rol: 'cajero' },
      { token: await t.adminToken() },
    );
    expect(update.status).toBe(200);
    const row = await tokenRow(user.refreshToken);
    expect(row.revoked_at).not.toBeNull();
    expectProblem(await refresh(user), 401, 'refresh_invalido');
  });

  it('refuses an unknown refresh token with the generic 401 and records refresh.issue failure unknown_token, with no actor (no family) and the presenting sub in metadata', async () => {
    const user = await t.createUser('cajero');
    const res = await t.post(REFRESH, { accessToken: user.token, refreshToken: 'bm90LWEtcmVhbC1yZWZyZXNoLXRva2VuLWF0LWFsbC0x' });
    expectProblem(res, 401, 'refresh_invalido');
    const events = (await t.securityEvents('refresh.issue')).filter((e) => e.metadata?.sub === String(user.id));
    expect(events[0]).toMatchObject({ result: 'failure', failure_reason: 'unknown_token', actor_user_id: null });
  });

  it('answers invalid refresh tokens and detected reuse with the very same 401 body', async () => {
    const user = await t.createUser('cajero');
    await refresh(user);
    const reuse = await refresh(user);
    const unknown = await t.post(REFRESH, { accessToken: user.token, refreshToken: 'unknown' });
    const empty = await t.post(REFRESH, { accessToken: user.token, refreshToken: '' });
    const badAccess = await t.post(REFRESH, { accessToken: 'not-a-jwt', refreshToken: 'x' });
    for (const res of [reuse, unknown, empty, badAccess]) expectProblem(res, 401, 'refresh_invalido');
    expect(withoutCorrelation(unknown)).toEqual(withoutCorrelation(reuse));
    expect(withoutCorrelation(empty)).toEqual(withoutCorrelation(reuse));
    expect(withoutCorrelation(badAccess)).toEqual(withoutCorrelation(reuse));
  });

  it('answers a missing or non-string field with 400 validacion', async () => {
    const user = await t.createUser('cajero');
    expectProblem(await t.post(REFRESH, { accessToken: user.token }), 400, 'validacion');
    expectProblem(await t.post(REFRESH, { refreshToken: user.refreshToken }), 400, 'validacion');
    expectProblem(await t.post(REFRESH, { accessToken: user.token, refreshToken: 42 }), 400, 'validacion');
    expectProblem(await t.post(REFRESH, { accessToken: null, refreshToken: user.refreshToken }), 400, 'validacion');
    expectProblem(await t.post(REFRESH, undefined), 400, 'validacion');
    expect((await tokenRow(user.refreshToken)).revoked_at).toBeNull();
  });

  it('accepts an expired access token whose signature, issuer and audience are valid', async () => {
    const user = await t.createUser('cajero');
    const past = Math.floor(Date.now() / 1000) - 3600;
    const expired = forge.rs256(
      forge.claims({ id: user.id, username: user.username, rol: 'cajero', token: user.token }, { iat: past - 900, exp: past }),
    );
    expectProblem(await t.get('/api/v1/auth/me', { token: expired }), 401, 'no_autenticado');
    expect((await t.post(REFRESH, { accessToken: expired, refreshToken: user.refreshToken })).status).toBe(200);
  });

  it.each<[string, (userId: number) => Record<string, unknown>]>([
    ['a wrong issuer', () => ({ iss: 'someone-else' })],
    ['a wrong audience', () => ({ aud: 'another-app' })],
    ['no exp claim', () => ({ exp: undefined })],
    ['a numeric sub', (userId) => ({ sub: userId })],
    ['a non-numeric sub', () => ({ sub: 'abc' })],
  ])(
    'refuses an access token with %s without touching the refresh token (401, refresh.issue failure invalid_access_token)',
    async (_case, changes) => {
      const user = await t.createUser('cajero');
      const claims = forge.claims({ id: user.id, username: user.username, rol: 'cajero', token: user.token }, changes(user.id));
      expectProblem(await t.post(REFRESH, { accessToken: forge.rs256(claims), refreshToken: user.refreshToken }), 401, 'refresh_invalido');
      const row = await tokenRow(user.refreshToken);
      expect(row.revoked_at).toBeNull();
      const [event] = await t.securityEvents('refresh.issue');
      // whose session it would have renewed, and whom the token claims to be (a malformed sub: null)
      const claimed = typeof claims.sub === 'string' && /^[1-9][0-9]*$/.test(claims.sub) ? claims.sub : null;
      expect(event).toMatchObject({ result: 'failure', failure_reason: 'invalid_access_token', actor_user_id: user.id, session_id: row.family_id });
      expect(event.metadata).toEqual({ familyId: row.family_id, sub: claimed });
    },
  );

  it('records a refusal for a garbage access token with the refresh token’s owner, and without one for an unknown refresh token', async () => {
    const user = await t.createUser('cajero');
    expectProblem(await t.post(REFRESH, { accessToken: 'not-a-token', refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    const row = await tokenRow(user.refreshToken);
    expect(row.revoked_at).toBeNull();
    const [event] = await t.securityEvents('refresh.issue');
    expect(event).toMatchObject({ failure_reason: 'invalid_access_token', actor_user_id: user.id, session_id: row.family_id });
    expect(event.metadata).toEqual({ familyId: row.family_id, sub: null });

    expectProblem(await t.post(REFRESH, { accessToken: user.token.slice(0, -2), refreshToken: 'y'.repeat(43) }), 401, 'refresh_invalido');
    const [unknown] = await t.securityEvents('refresh.issue');
    expect(unknown).toMatchObject({ failure_reason: 'invalid_access_token', actor_user_id: null, session_id: null });
    expect(unknown.metadata).toEqual({ sub: String(user.id) });
  });

  it("writes at most 30 events a minute of one address's refreshes refused for a garbage token, counts the rest without reading the token's family, and still writes another address's", async () => {
    const suppressed = async () =>
      (await t.app.get(AppMetrics).securityEventsSuppressed.get()).values.find((v) => v.labels.reason === 'invalid_access_token')?.value ?? 0;
    const written = async (ip: string) =>
      Number((await t.query(`SELECT count(*) AS n FROM security_events WHERE failure_reason = 'invalid_access_token' AND ip = $1`, [ip]))[0].n);
    const garbage = { accessToken: 'not.a.token', refreshToken: 'x'.repeat(43) };
    const before = await suppressed();
    const familyLookups = jest.spyOn(t.app.get(RefreshTokensService), 'familyOf');
    try {
      for (let i = 0; i < 70; i++) expectProblem(await t.post(REFRESH, garbage, { remoteAddress: '10.44.0.1' }), 401, 'refresh_invalido');
      const kept = await written('10.44.0.1');
      // 30 in one minute, or up to 60 when the burst straddled the turn of a minute
      expect(kept).toBeLessThanOrEqual(2 * REPEATS_PER_MINUTE);
      expect(kept + (await suppressed()) - before).toBe(70);
      // only the written events looked the refresh token up
      expect(familyLookups).toHaveBeenCalledTimes(kept);
    } finally {
      familyLookups.mockRestore();
    }
    expectProblem(await t.post(REFRESH, garbage, { remoteAddress: '10.44.0.2' }), 401, 'refresh_invalido');
    expect(await written('10.44.0.2')).toBe(1);
  });

  it('refuses an access token signed with a key the service does not publish (unknown kid), and a forged signature', async () => {
    const user = await t.createUser('cajero');
    const claims = forge.claims({ id: user.id, username: user.username, rol: 'cajero', token: user.token });
    const wrongKid = forge.rs256(claims, { kid: 'not-published' });
    const tampered = forge.tampered(user.token, { rol: 'admin' });
    expectProblem(await t.post(REFRESH, { accessToken: wrongKid, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    expectProblem(await t.post(REFRESH, { accessToken: tampered, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    expectProblem(await t.post(REFRESH, { accessToken: forge.hs256WithPublicKey(claims), refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    expect((await tokenRow(user.refreshToken)).revoked_at).toBeNull();
  });

  it('lets exactly one of 20 concurrent refreshes of one token win; the others are 401 as reuse, never a 5xx', async () => {
    const user = await t.createUser('cajero');
    // open every pooled connection first, so the 20 requests really overlap in the database
    await Promise.all(Array.from({ length: t.config.db.poolSize }, () => t.query('SELECT 1')));
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(user)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 401)) expect(r.body.code).toBe('refresh_invalido');

    const { family_id } = await tokenRow(user.refreshToken);
    const chain = await familyRows(family_id);
    expect(chain).toHaveLength(2); // never two children
    expect(chain.every((r) => r.revoked_at !== null)).toBe(true);
    expect(await eventsOfFamily('refresh.reuse_detected', family_id)).toHaveLength(19);
    expect((await eventsOfFamily('refresh.issue', family_id)).filter((e) => e.result === 'success')).toHaveLength(1);
  });

  it('captures the client IP and user agent on the rotated token', async () => {
    const user = await t.createUser('cajero');
    const res = await t.post(
      REFRESH,
      { accessToken: user.token, refreshToken: user.refreshToken },
      { headers: { 'user-agent': 'refresh-agent/2' }, remoteAddress: '192.0.2.44' },
    );
    expect(await tokenRow(res.body.refreshToken)).toMatchObject({ client_ip: '192.0.2.44', user_agent: 'refresh-agent/2' });
  });

  it('never stores a refresh token in any table: only its SHA-256 hash, base64url', async () => {
    const user: CreatedUser = await t.createUser('cajero');
    const rotated = await refresh(user);
    await refresh(user); // reuse: the revoked token travels through the failure path too
    const plain = [user.refreshToken, rotated.body.refreshToken];
    const dump = await dumpAllTables(t);
    for (const [table, text] of dump) {
      for (const token of plain) expect({ table, leaked: text.includes(token) }).toEqual({ table, leaked: false });
    }
    // the scan does see the tokens' rows: their hashes are there
    const refreshTable = [...dump.entries()].find(([name]) => name.endsWith('.refresh_tokens'))?.[1];
    expect(refreshTable).toContain(sha256b64url(user.refreshToken));
    expect(refreshTable).toContain(sha256b64url(rotated.body.refreshToken));
  });
});
