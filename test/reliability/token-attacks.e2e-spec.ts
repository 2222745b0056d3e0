import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync, sign } from 'node:crypto';
import { TokenForge, decodeJwt, sha256b64url } from '../auth/support/auth-helpers.js';
import type { CreatedUser } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { ReliabilityApp } from './support/reliability-app.js';

/**
 * Every token attack in one table: forged, altered, misdirected, stale or replayed access and
 * refresh tokens. Each is refused with the generic 401 and leaves exactly the security event the
 * contract names (or none: a refused access token on a guarded route records nothing). A control
 * row proves the forge itself builds tokens the service accepts, so each attack fails for its flaw
 * alone. Token building reuses test/auth's TokenForge.
 */

const now = () => Math.floor(Date.now() / 1000);
const otherKey = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const sidOf = (accessToken: string) => decodeJwt(accessToken).payload.sid as string;

/** RS256 with the service's own key but no `kid` header (TokenForge always writes one). */
function rs256WithoutKid(forge: TokenForge, payload: Record<string, unknown>): string {
  const data = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${data}.${sign('sha256', Buffer.from(data), forge.keys.privateKeyPem).toString('base64url')}`;
}

type Forgery = (forge: TokenForge, claims: Record<string, unknown>, valid: string) => string;

/** Access-token forgeries: each is tried on guarded routes and, with a valid refresh token, on refresh. */
const FORGERIES: Array<{ vector: string; forge: Forgery; onRefresh: boolean }> = [
  { vector: 'alg none (unsigned)', forge: (f, c) => f.unsigned(c), onRefresh: true },
  { vector: 'HS256 signed with the public key as the secret', forge: (f, c) => f.hs256WithPublicKey(c), onRefresh: true },
  { vector: 'tampered payload: rol changed after signing', forge: (f, _c, valid) => f.tampered(valid, { rol: 'superadmin' }), onRefresh: true },
  { vector: 'tampered payload: sub changed after signing', forge: (f, _c, valid) => f.tampered(valid, { sub: '1' }), onRefresh: true },
  { vector: 'wrong kid (a key the service does not publish)', forge: (f, c) => f.rs256(c, { kid: 'not-published' }), onRefresh: true },
  { vector: 'missing kid', forge: (f, c) => rs256WithoutKid(f, c), onRefresh: true },
  { vector: 'another RSA key under the published kid', forge: (f, c) => f.rs256(c, { privateKeyPem: otherKey.privateKey }), onRefresh: true },
  { vector: 'expired (exp in the past)', forge: (f, c) => f.rs256({ ...c, iat: now() - 2000, exp: now() - 60 }), onRefresh: false }, // refresh ignores expiry by contract
  { vector: 'not yet valid (nbf in the future)', forge: (f, c) => f.rs256({ ...c, nbf: now() + 3600 }), onRefresh: true },
  { vector: 'wrong iss', forge: (f, c) => f.rs256({ ...c, iss: 'evil-issuer' }), onRefresh: true },
  { vector: 'wrong aud', forge: (f, c) => f.rs256({ ...c, aud: 'another-audience' }), onRefresh: true },
  { vector: 'missing exp', forge: (f, c) => f.rs256({ ...c, exp: undefined }), onRefresh: true },
  { vector: 'non-numeric sub', forge: (f, c) => f.rs256({ ...c, sub: 'admin' }), onRefresh: true },
  { vector: 'sub as a JSON number', forge: (f, c) => f.rs256({ ...c, sub: Number(c.sub) }), onRefresh: true },
  { vector: 'sub that is not a positive 32-bit integer', forge: (f, c) => f.rs256({ ...c, sub: '4294967296' }), onRefresh: true },
  {
    vector: 'a crit header naming an extension the service does not implement',
    forge: (f, c) => f.rs256({ ...c, exp2: 1 }, { header: { crit: ['exp2'] } }),
    onRefresh: true,
  },
  // sent as `Authorization: Bearer <valid token> junk`
  { vector: 'a valid token followed by junk in the Authorization header', forge: (_f, _c, valid) => `${valid} junk`, onRefresh: false },
];

interface Attack {
  vector: string;
  channel: 'access' | 'refresh';
  /** sends the attack; answers the HTTP status and code, and what the expectation needs */
  run: () => Promise<{ status: number; code: string | undefined; familyId?: string; refreshToken?: string }>;
  /** the security event it must leave: null for none */
  event: { action: string; result: 'failure'; failureReason: string } | null;
  /** the presented refresh token's family afterwards: untouched, or fully revoked */
  family?: 'untouched' | 'revoked';
}

describe('token attacks (table-driven): all 401, with the expected security events', () => {
  let r: ReliabilityApp;
  let forge: TokenForge;
  const attacks: Attack[] = [];
  const results: Array<{ vector: string; channel: string; status: number; event: string }> = [];

  const me = (token: string) => r.t.get('/api/v1/auth/me', { token });
  const guarded = (token: string) => r.t.get('/api/v1/users', { token });
  const refresh = (accessToken: string, refreshToken: string) => r.t.post('/api/v1/auth/refresh', { accessToken, refreshToken });
  const admin = () => r.t.createUser('admin');
  const claimsOf = (u: CreatedUser) => forge.claims({ id: u.id, username: u.username, rol: 'admin', token: u.token });
  const tokenRow = async (refreshToken: string) =>
    (
      await r.ownerQuery('SELECT family_id::text AS family_id, revoked_at FROM refresh_tokens WHERE token_hash = $1', [sha256b64url(refreshToken)])
    )[0];

  beforeAll(async () => {
    r = await ReliabilityApp.create();
    forge = new TokenForge(r.t);

    for (const f of FORGERIES) {
      attacks.push({
        vector: f.vector,
        channel: 'access',
        event: null,
        run: async () => {
          const u = await admin();
          const token = f.forge(forge, claimsOf(u), u.token);
          const [a, b] = [await me(token), await guarded(token)];
          // both routes refuse alike; report the first difference as the answer
          return a.status === b.status && a.body?.code === b.body?.code
            ? { status: a.status, code: a.body?.code }
            : { status: 0, code: `${a.status}/${b.status}` };
        },
      });
      if (f.onRefresh) {
        attacks.push({
          vector: `${f.vector} (presented to refresh with a valid refresh token)`,
          channel: 'refresh',
          event: { action: 'refresh.issue', result: 'failure', failureReason: 'invalid_access_token' },
          family: 'untouched',
          run: async () => {
            const u = await admin();
            const res = await refresh(f.forge(forge, claimsOf(u), u.token), u.refreshToken);
            return { status: res.status, code: res.body?.code, refreshToken: u.refreshToken };
          },
        });
      }
    }
    // an unexpired access token whose session has ended, one row per way a session ends
    const endedSessions: Array<{ vector: string; end: (victim: CreatedUser, by: CreatedUser) => Promise<number> }> = [
      { vector: 'access token after logout', end: async (v) => (await r.t.post('/api/v1/auth/logout', undefined, { token: v.token })).status },
      {
        vector: 'access token after session revocation',
        end: async (v, by) => (await r.t.delete(`/api/v1/users/${v.id}/sessions/${sidOf(v.token)}`, { token: by.token })).status,
      },
      {
        vector: 'access token after password change',
        end: async (v) =>
          (await r.t.put('/api/v1/users/me/password', { currentPassword: v.password, newPassword: 'Otra-Clave-2026' }, { token: v.token })).status,
      },
      {
        vector: 'access token after reset',
        end: async (v, by) => (await r.t.post(`/api/v1/users/${v.id}/password-reset`, undefined, { token: by.token })).status,
      },
      {
        vector: 'access token after reactivation',
        end: async (v, by) => {
          const off = await r.t.post(`/api/v1/users/${v.id}/deactivate`, undefined, { token: by.token });
          return off.status === 200 ? (await r.t.post(`/api/v1/users/${v.id}/reactivate`, undefined, { token: by.token })).status : off.status;
        },
      },
    ];
    for (const e of endedSessions) {
      attacks.push({
        vector: e.vector,
        channel: 'access',
        event: null,
        run: async () => {
          const [victim, by] = [await admin(), await admin()];
          const ended = await e.end(victim, by);
          if (ended < 200 || ended > 299) throw new Error(`${e.vector}: ending the session answered ${ended}`);
          const [a, b] = [await me(victim.token), await guarded(victim.token)];
          return a.status === b.status && a.body?.code === b.body?.code
            ? { status: a.status, code: a.body?.code }
            : { status: 0, code: `${a.status}/${b.status}` };
        },
      });
    }
    attacks.push(
      {
        vector: 'an unexpired token of a deleted user',
        channel: 'access',
        event: null,
        run: async () => {
          const u = await admin();
          await r.ownerQuery('DELETE FROM refresh_tokens WHERE user_id = $1', [u.id]);
          await r.ownerQuery('DELETE FROM sessions WHERE user_id = $1', [u.id]);
          await r.ownerQuery('DELETE FROM users WHERE id = $1', [u.id]);
          const [a, b] = [await me(u.token), await guarded(u.token)];
          return a.status === b.status ? { status: a.status, code: a.body?.code } : { status: 0, code: `${a.status}/${b.status}` };
        },
      },
      {
        vector: 'an unexpired token of a deactivated user',
        channel: 'access',
        event: null,
        run: async () => {
          const u = await admin();
          await r.ownerQuery('UPDATE users SET activo = false WHERE id = $1', [u.id]);
          const res = await guarded(u.token);
          return { status: res.status, code: res.body?.code };
        },
      },
      {
        vector: 'a refresh of an already rotated refresh token (replay)',
        channel: 'refresh',
        event: { action: 'refresh.reuse_detected', result: 'failure', failureReason: 'reuse_detected' },
        family: 'revoked',
        run: async () => {
          const u = await r.t.createUser('cajero');
          const first = await refresh(u.token, u.refreshToken);
          if (first.status !== 200) throw new Error(`the first rotation failed: ${first.text}`);
          const res = await refresh(u.token, u.refreshToken);
          return { status: res.status, code: res.body?.code, refreshToken: u.refreshToken };
        },
      },
      {
        vector: "a refresh with another user's access token",
        channel: 'refresh',
        event: { action: 'refresh.issue', result: 'failure', failureReason: 'sub_mismatch' },
        family: 'untouched',
        run: async () => {
          const [victim, attacker] = [await r.t.createUser('cajero'), await r.t.createUser('cajero')];
          const res = await refresh(attacker.token, victim.refreshToken);
          return { status: res.status, code: res.body?.code, refreshToken: victim.refreshToken };
        },
      },
      {
        vector: 'an expired refresh token',
        channel: 'refresh',
        event: { action: 'refresh.issue', result: 'failure', failureReason: 'token_expired' },
        family: 'untouched',
        run: async () => {
          const u = await r.t.createUser('cajero');
          await r.ownerQuery(`UPDATE refresh_tokens SET expires_at = now() - interval '1 minute' WHERE token_hash = $1`, [
            sha256b64url(u.refreshToken),
          ]);
          const res = await refresh(u.token, u.refreshToken);
          return { status: res.status, code: res.body?.code, refreshToken: u.refreshToken };
        },
      },
      {
        vector: 'a refresh token of a deactivated user',
        channel: 'refresh',
        event: { action: 'refresh.issue', result: 'failure', failureReason: 'user_inactive' },
        family: 'untouched',
        run: async () => {
          const u = await r.t.createUser('cajero', { activo: false });
          const res = await refresh(u.token, u.refreshToken);
          return { status: res.status, code: res.body?.code, refreshToken: u.refreshToken };
        },
      },
      {
        vector: 'a refresh token the service never issued',
        channel: 'refresh',
        event: { action: 'refresh.issue', result: 'failure', failureReason: 'unknown_token' },
        run: async () => {
          const u = await r.t.createUser('cajero');
          const res = await refresh(u.token, `${u.refreshToken.slice(0, -4)}AAAA`);
          return { status: res.status, code: res.body?.code };
        },
      },
    );
  });
  afterAll(async () => {
    if (results.length) {
      const held = results.filter((x) => x.status === 401).length;
      recordFigures('token-attacks', `token attacks: ${results.length} vectors, ${held} refused with 401`, {
        vectors: results.length,
        refused: held,
        accessVectors: results.filter((x) => x.channel === 'access').length,
        refreshVectors: results.filter((x) => x.channel === 'refresh').length,
        results,
      });
    }
    await r?.close();
  });

  it('accepts the control: a token built by the forge exactly like the service builds them, on both guarded routes and on refresh', async () => {
    const u = await admin();
    const token = forge.rs256(claimsOf(u));
    expect((await me(token)).status).toBe(200);
    expect((await guarded(token)).status).toBe(200);
    expect((await refresh(token, u.refreshToken)).status).toBe(200);
  });

  it('refuses every attack with the generic 401 and leaves exactly the expected security event', async () => {
    const failures: string[] = [];
    for (const attack of attacks) {
      const before = Number((await r.ownerQuery('SELECT max(id) AS n FROM security_events'))[0].n ?? 0);
      const res = await attack.run();
      const events: Array<{ action: string; result: string; failure_reason: string | null; session_id: string | null }> = await r.ownerQuery(
        'SELECT action, result, failure_reason, session_id FROM security_events WHERE id > $1 ORDER BY id',
        [before],
      );
      // setup sign-ins (createUser, the first rotation of the replay) leave their own success events
      const attackEvents = events.filter((e) => e.result === 'failure');
      const expectedCode = attack.channel === 'access' ? 'no_autenticado' : 'refresh_invalido';
      if (res.status !== 401 || res.code !== expectedCode) failures.push(`${attack.vector}: answered ${res.status} ${res.code}`);
      const expected = attack.event ? [`${attack.event.action}/${attack.event.result}/${attack.event.failureReason}`] : [];
      const seen = attackEvents.map((e) => `${e.action}/${e.result}/${e.failure_reason}`);
      if (JSON.stringify(seen) !== JSON.stringify(expected))
        failures.push(`${attack.vector}: security events ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`);
      if (attack.family && res.refreshToken) {
        const row = await tokenRow(res.refreshToken);
        const family: Array<{ revoked_at: Date | null }> = await r.ownerQuery('SELECT revoked_at FROM refresh_tokens WHERE family_id = $1::uuid', [
          row.family_id,
        ]);
        if (attack.family === 'untouched' && row.revoked_at !== null) failures.push(`${attack.vector}: the presented refresh token was revoked`);
        if (attack.family === 'revoked' && family.some((x) => x.revoked_at === null))
          failures.push(`${attack.vector}: the family still has an active token`);
        if (attack.event && attackEvents[0]?.session_id !== row.family_id) failures.push(`${attack.vector}: the event does not name the family`);
      }
      results.push({
        vector: attack.vector,
        channel: attack.channel,
        status: res.status,
        event: attack.event ? `${attack.event.action} (${attack.event.failureReason})` : 'none',
      });
    }
    expect(failures).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(41);
  });
});
