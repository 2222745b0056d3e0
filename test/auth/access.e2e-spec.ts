import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { VerifiedTokens } from '../../src/auth/verified-tokens.js';
import { TestApp, expectProblem } from '../support/test-app.js';
import {
  PROBE_AUDITED,
  PROBE_AUDITED_ANONYMOUS,
  PROBE_GUARDED,
  PROBE_PERMISSION,
  ProbeModule,
  TokenForge,
  appWithForge,
  decodeJwt,
} from './support/auth-helpers.js';

const ME = '/api/v1/auth/me';

describe('auth: access tokens and the deny-by-default guard', () => {
  let t: TestApp, forge: TokenForge;
  beforeAll(async () => ({ t, forge } = await appWithForge({ extraModules: [ProbeModule] })));
  afterAll(() => t.close());

  const setOverrides = (userId: number, overrides: { granted: string[]; denied: string[] }) =>
    t.query('UPDATE users SET permission_overrides = $1 WHERE id = $2', [JSON.stringify(overrides), userId]);

  describe('tokens', () => {
    it('signs access tokens with RS256 and a kid, carrying sub (decimal string), name, rol, iss, aud, iat, exp, jti and sid — and no permissions', async () => {
      const user = await t.createUser('cajero');
      const { header, payload } = decodeJwt(user.token);
      expect(header).toMatchObject({ alg: 'RS256', kid: forge.keys.kid });
      expect(payload).toEqual({
        sub: String(user.id),
        name: user.username,
        rol: 'cajero',
        iss: t.config.jwt.issuer,
        aud: t.config.jwt.audience,
        iat: expect.any(Number),
        exp: expect.any(Number),
        jti: expect.any(String),
        sid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      });
      expect((payload.exp as number) - (payload.iat as number)).toBe(900);
    });

    it("publishes the verifying public key at /.well-known/jwks.json under the tokens' kid", async () => {
      const user = await t.createUser('cajero');
      const res = await t.get('/.well-known/jwks.json');
      expect(res.status).toBe(200);
      const jwk = res.body.keys.find((k: { kid: string }) => k.kid === decodeJwt(user.token).header.kid);
      expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(jwk).not.toHaveProperty('d');
      const [h, p, s] = user.token.split('.');
      expect(verify('sha256', Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(s!, 'base64url'))).toBe(true);
    });

    it('accepts a token built exactly like the service builds them (so the forgeries below fail for their flaw alone)', async () => {
      const user = await t.createUser('auditor');
      const token = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }));
      expect((await t.get(ME, { token })).status).toBe(200);
      expect((await t.get(PROBE_GUARDED, { token })).status).toBe(200);
    });

    const otherKey = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const now = () => Math.floor(Date.now() / 1000);
    const forgeries: Array<[string, (f: TokenForge, c: Record<string, unknown>, valid: string) => string]> = [
      ['alg none (unsigned)', (f, c) => f.unsigned(c)],
      ['HS256 signed with the public key as the secret', (f, c) => f.hs256WithPublicKey(c)],
      ['a tampered payload (rol changed after signing)', (f, _c, valid) => f.tampered(valid, { rol: 'admin' })],
      ['a tampered payload (sub changed after signing)', (f, _c, valid) => f.tampered(valid, { sub: '1' })],
      ['an expired exp', (f, c) => f.rs256({ ...c, iat: now() - 2000, exp: now() - 60 })],
      ['a wrong iss', (f, c) => f.rs256({ ...c, iss: 'evil-issuer' })],
      ['a wrong aud', (f, c) => f.rs256({ ...c, aud: 'another-audience' })],
      ['no exp', (f, c) => f.rs256({ ...c, exp: undefined })],
      ['a numeric sub', (f, c) => f.rs256({ ...c, sub: Number(c.sub) })],
      ['a non-numeric sub', (f, c) => f.rs256({ ...c, sub: 'admin' })],
      ['a sub that is not a positive integer', (f, c) => f.rs256({ ...c, sub: '0' })],
      ['an unknown kid (right key)', (f, c) => f.rs256(c, { kid: 'unpublished-key' })],
      ['another key under its own kid', (f, c) => f.rs256(c, { kid: 'attacker-key', privateKeyPem: otherKey.privateKey })],
      ['another key under the published kid', (f, c) => f.rs256(c, { privateKeyPem: otherKey.privateKey })],
    ];

    it.each(forgeries)('rejects a token with %s with 401 on guarded routes', async (_name, build) => {
      const user = await t.createUser('auditor');
      const token = build(forge, forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }), user.token);
      expectProblem(await t.get(ME, { token }), 401, 'no_autenticado');
      expectProblem(await t.get(PROBE_GUARDED, { token }), 401, 'no_autenticado');
    });

    it('refuses a token it accepted before once its exp is reached, to the second', async () => {
      const user = await t.createUser('auditor');
      const exp = now() + 2;
      const token = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }, { exp }));
      expect((await t.get(PROBE_GUARDED, { token })).status).toBe(200);
      expect((await t.get(PROBE_GUARDED, { token })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 20));
      expectProblem(await t.get(PROBE_GUARDED, { token }), 401, 'no_autenticado');
      expectProblem(await t.get(ME, { token }), 401, 'no_autenticado');
    });

    it('verifies a token once and recalls it after, and remembers no token it refused', async () => {
      const tokens = t.app.get(VerifiedTokens);
      const user = await t.createUser('auditor');
      const token = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }));
      const before = tokens.size;
      expect(tokens.recall(token, Date.now())).toBeUndefined();
      expect((await t.get(ME, { token })).status).toBe(200);
      expect(tokens.recall(token, Date.now())).toMatchObject({ userId: user.id, sessionId: decodeJwt(user.token).payload.sid });
      expect((await t.get(ME, { token })).status).toBe(200);
      expect(tokens.size).toBe(before + 1);
      const expired = forge.rs256(forge.claims({ id: user.id, username: user.username, rol: 'auditor', token: user.token }, { exp: now() - 1 }));
      expectProblem(await t.get(ME, { token: expired }), 401, 'no_autenticado');
      expectProblem(await t.get(ME, { token: forge.tampered(token, { rol: 'admin' }) }), 401, 'no_autenticado');
      expect(tokens.size).toBe(before + 1);
    });

    it('refuses a tampered copy of a token it has accepted, and still accepts the original', async () => {
      const user = await t.createUser('auditor');
      expect((await t.get(ME, { token: user.token })).status).toBe(200);
      expectProblem(await t.get(ME, { token: forge.tampered(user.token, { rol: 'admin' }) }), 401, 'no_autenticado');
      const [h, p, s] = user.token.split('.');
      const flipped = s!.startsWith('A') ? `B${s!.slice(1)}` : `A${s!.slice(1)}`;
      expectProblem(await t.get(ME, { token: `${h}.${p}.${flipped}` }), 401, 'no_autenticado');
      expectProblem(await t.get(ME, { token: `${user.token}x` }), 401, 'no_autenticado');
      expect((await t.get(ME, { token: user.token })).status).toBe(200);
    });

    it('rejects a malformed Authorization header or a garbage token with 401', async () => {
      expectProblem(await t.get(ME, { headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } }), 401, 'no_autenticado');
      expectProblem(await t.get(ME, { token: 'not.a.jwt' }), 401, 'no_autenticado');
    });
  });

  describe('permissions resolved from the store on every request', () => {
    it('applies a deny override on the very next request made with the same access token', async () => {
      const user = await t.createUser('auditor');
      expect((await t.get(PROBE_GUARDED, { token: user.token })).status).toBe(200);
      await setOverrides(user.id, { granted: [], denied: [PROBE_PERMISSION] });
      expectProblem(await t.get(PROBE_GUARDED, { token: user.token }), 403, 'permiso_denegado');
    });

    it('applies a grant override on the very next request made with the same access token', async () => {
      const user = await t.createUser('cajero');
      expectProblem(await t.get(PROBE_GUARDED, { token: user.token }), 403, 'permiso_denegado');
      await setOverrides(user.id, { granted: [PROBE_PERMISSION], denied: [] });
      expect((await t.get(PROBE_GUARDED, { token: user.token })).status).toBe(200);
    });

    it('lets a deny override win over a grant of the same code and over the role', async () => {
      const user = await t.createUser('auditor', { overrides: { granted: [PROBE_PERMISSION], denied: [PROBE_PERMISSION] } });
      expectProblem(await t.get(PROBE_GUARDED, { token: user.token }), 403, 'permiso_denegado');
    });

    it('gives no permissions through an inactive role', async () => {
      await t.query(`INSERT INTO roles (codigo, nombre, descripcion, activo) VALUES ('probe_lectores', 'Probe', '', $1)`, [true]);
      await t.query(
        `INSERT INTO role_permissions (role_id, permission_id)
         SELECT r.id, p.id FROM roles r, permissions p WHERE r.codigo = 'probe_lectores' AND p.codigo = $1`,
        [PROBE_PERMISSION],
      );
      const user = await t.createUser('probe_lectores');
      expect((await t.get(PROBE_GUARDED, { token: user.token })).status).toBe(200);
      await t.query(`UPDATE roles SET activo = $1 WHERE codigo = 'probe_lectores'`, [false]);
      expectProblem(await t.get(PROBE_GUARDED, { token: user.token }), 403, 'permiso_denegado');
    });

    it("answers 401 to a deactivated user's unexpired token on every guarded route", async () => {
      const user = await t.createUser('auditor');
      expect((await t.get(ME, { token: user.token })).status).toBe(200);
      await t.query('UPDATE users SET activo = $1 WHERE id = $2', [false, user.id]);
      expectProblem(await t.get(ME, { token: user.token }), 401, 'no_autenticado');
      expectProblem(await t.get(PROBE_GUARDED, { token: user.token }), 401, 'no_autenticado');
      expectProblem(await t.post('/api/v1/auth/logout', undefined, { token: user.token }), 401, 'no_autenticado');
    });

    it('answers 401 to the unexpired token of a user that no longer exists', async () => {
      const token = forge.rs256(forge.claims({ id: 999_999, username: 'ghost', rol: 'admin' }));
      expectProblem(await t.get(ME, { token }), 401, 'no_autenticado');
    });

    it('answers a missing permission with a 403 problem document', async () => {
      const user = await t.createUser('cajero');
      const res = await t.get(PROBE_GUARDED, { token: user.token });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual({
        type: 'about:blank',
        title: 'Forbidden',
        status: 403,
        detail: expect.stringContaining(PROBE_PERMISSION),
        instance: PROBE_GUARDED,
        code: 'permiso_denegado',
        correlationId: res.headers['x-correlation-id'],
      });
    });

    it('records security event permission.denied (failure) with {permission, endpoint, method} and the sub as actor', async () => {
      const user = await t.createUser('cajero');
      await t.get(PROBE_GUARDED, { token: user.token, headers: { 'user-agent': 'denied-agent' } });
      const [event] = (await t.securityEvents('permission.denied')).filter((e) => e.actor_user_id === user.id);
      expect(event).toMatchObject({ result: 'failure', user_agent: 'denied-agent', ip: '127.0.0.1' });
      expect(event.metadata).toEqual({ permission: PROBE_PERMISSION, endpoint: PROBE_GUARDED, method: 'GET' });
    });

    it('serves /auth/me with the caller and the effective permissions read from the store', async () => {
      const user = await t.createUser('auditor');
      await setOverrides(user.id, { granted: ['catalogo:rubros:gestionar'], denied: ['administracion:usuarios:ver'] });
      const res = await t.get(ME, { token: user.token });
      expect(res.body).toEqual({
        id: user.id,
        username: user.username,
        nombre: 'Test',
        apellido: 'auditor',
        email: `${user.username}@example.test`,
        rol: 'auditor',
        mustChangePassword: false,
        permisos: ['administracion:auditoria:ver', 'administracion:roles:ver', 'catalogo:rubros:gestionar'],
      });
    });
  });

  describe('the audit actor is the sub of the authenticated caller', () => {
    it('records the sub of the access token as the actor of audit events', async () => {
      const user = await t.createUser('cajero');
      expect((await t.post(PROBE_AUDITED, undefined, { token: user.token })).status).toBe(201);
      const [event] = await t.auditEvents({ action: 'probe.write', targetId: 'audited' });
      expect(event).toMatchObject({ actor_user_id: user.id, target_type: 'probe' });
    });

    it('fails an audited write made without an authenticated actor, keeping nothing', async () => {
      const res = await t.post(PROBE_AUDITED_ANONYMOUS);
      expectProblem(res, 500, 'error_interno');
      expect(await t.auditEvents({ action: 'probe.write', targetId: 'anonymous' })).toHaveLength(0);
    });
  });
});
