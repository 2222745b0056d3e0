import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resetPasswordAsSystem } from '../../src/users/operator-password-reset.js';
import { TestApp } from '../support/test-app.js';

/** What `npm run cli -- admin:reset-password <username>` does, on a real database. */
describe('operator password reset (CLI admin:reset-password)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create()));
  afterAll(() => t.close());

  it('gives the user a temporary password that signs in with mustChangePassword set', async () => {
    const user = await t.createUser('supervisor');
    const temporary = await resetPasswordAsSystem(t.app, user.username);
    expect(temporary).toEqual(expect.any(String));
    const login = await t.post('/api/v1/auth/login', { username: user.username, password: temporary });
    expect(login.status).toBe(200);
    expect(login.body.mustChangePassword).toBe(true);
    expect((await t.post('/api/v1/auth/login', { username: user.username, password: user.password })).status).toBe(401);
  });

  it('audits the reset with the inactive system user as actor and no secret in the metadata', async () => {
    const user = await t.createUser('cajero');
    const temporary = await resetPasswordAsSystem(t.app, user.username);
    const [system] = await t.query('SELECT id, activo FROM users WHERE username = $1', ['system']);
    expect(system.activo).toBeFalsy();
    const [event] = await t.auditEvents({ action: 'usuario.password_reset', targetId: String(user.id) });
    expect(event.actor_user_id).toBe(system.id);
    expect(event.metadata).toEqual({ targetId: String(user.id) });
    // an operator's command, not a request: no correlation id
    expect(event.correlation_id).toBeNull();
    expect(JSON.stringify(event)).not.toContain(temporary);
  });

  it('records the system user’s own creation, once, with itself as actor and how it came to be', async () => {
    await resetPasswordAsSystem(t.app, (await t.createUser('consulta')).username);
    const [system] = await t.query('SELECT id FROM users WHERE username = $1', ['system']);
    const created = await t.auditEvents({ action: 'usuario.create', targetId: String(system.id) });
    expect(created).toHaveLength(1);
    expect(created[0].actor_user_id).toBe(system.id);
    expect(created[0].metadata).toEqual({
      after: { username: 'system', nombre: 'Sistema', apellido: 'CLI', email: 'system@localhost', rol: 'consulta' },
      via: 'operator_cli',
    });
  });

  it("revokes the user's refresh tokens", async () => {
    const user = await t.createUser('vendedor');
    await resetPasswordAsSystem(t.app, user.username);
    const active = await t.query('SELECT id FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id]);
    expect(active).toHaveLength(0);
  });

  it('reuses the one system user, which cannot sign in', async () => {
    const a = await t.createUser('consulta');
    await resetPasswordAsSystem(t.app, a.username);
    await resetPasswordAsSystem(t.app, a.username);
    expect(await t.query('SELECT id FROM users WHERE username = $1', ['system'])).toHaveLength(1);
    expect((await t.post('/api/v1/auth/login', { username: 'system', password: 'anything-at-all-1' })).status).toBe(401);
  });

  it('answers nothing for an unknown user and changes nothing', async () => {
    expect(await resetPasswordAsSystem(t.app, 'nobody_here')).toBeUndefined();
  });

  it('reserves the name: the API refuses to create a user "system" (409), and an active one is never taken for the actor', async () => {
    const admin = await t.adminToken();
    const body = { username: 'system', password: 'Otra-Clave-Segura-2026', nombre: 'S', apellido: 'S', email: 's@example.com', rol: 'admin' };
    const res = await t.post('/api/v1/users', body, { token: admin });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('duplicado');
    // nor does the API act on it once it exists: no one could then sign in as the CLI's actor
    await resetPasswordAsSystem(t.app, (await t.createUser('consulta')).username);
    const [system] = await t.query('SELECT id FROM users WHERE username = $1', ['system']);
    for (const [method, path, payload] of [
      ['POST', `/api/v1/users/${system.id}/reactivate`, undefined],
      ['POST', `/api/v1/users/${system.id}/password-reset`, undefined],
      ['PUT', `/api/v1/users/${system.id}`, { nombre: 'S', apellido: 'S', email: 's@example.com', rol: 'admin' }],
      ['PUT', `/api/v1/users/${system.id}/permisos/overrides`, { granted: ['administracion:usuarios:gestionar'], denied: [] }],
    ] as const) {
      const refused = await t.request(method, path, { token: admin, body: payload, headers: { 'if-match': '*' } });
      expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 403, code: 'privilegio_insuficiente' });
    }
    expect((await t.query('SELECT activo FROM users WHERE id = $1', [system.id]))[0].activo).toBeFalsy();
    // a "system" account made before the name was reserved, and active: the CLI refuses to act as it
    await t.query('UPDATE users SET activo = true WHERE username = $1', ['system']);
    try {
      const a = await t.createUser('consulta');
      await expect(resetPasswordAsSystem(t.app, a.username)).rejects.toThrow(/is active, so it is not the CLI's actor/);
      expect((await t.post('/api/v1/auth/login', { username: a.username, password: a.password })).status).toBe(200);
    } finally {
      await t.query('UPDATE users SET activo = false WHERE username = $1', ['system']);
    }
  });
});
