import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ADMIN_USERNAME, expectProblem, TestApp } from '../support/test-app.js';

describe('user passwords', () => {
  let t: TestApp;
  let admin: string;
  let adminId: number;

  beforeAll(async () => {
    t = await TestApp.create();
    admin = await t.adminToken();
    adminId = Number((await t.query('SELECT id FROM users WHERE username = $1', [ADMIN_USERNAME]))[0].id);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A user created through the API (mustChangePassword true), signed in. */
  const newUser = async (password = 'Primera-clave-1') => {
    const username = `pw_${randomBytes(4).toString('hex')}`;
    const res = await t.post(
      '/api/v1/users',
      { username, password, nombre: 'Pia', apellido: 'Paz', email: `${username}@example.test`, rol: 'consulta' },
      { token: admin },
    );
    if (res.status !== 201) throw new Error(res.text);
    const session = await t.login(username, password);
    return {
      id: res.body.id as number,
      username,
      password,
      token: session.accessToken,
      refreshToken: session.refreshToken,
      mustChangePassword: session.body.mustChangePassword as boolean,
    };
  };
  const activeTokens = async (userId: number) =>
    (await t.query('SELECT 1 FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [userId])).length;

  describe('change own password', () => {
    it('answers 204, the old password then fails, the new one signs in with mustChangePassword false', async () => {
      const user = await newUser();
      expect(user.mustChangePassword).toBe(true);
      const res = await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Segunda-clave-2' }, { token: user.token });
      expect(res.status).toBe(204);
      expectProblem(await t.post('/api/v1/auth/login', { username: user.username, password: user.password }), 401, 'credenciales_invalidas');
      const again = await t.login(user.username, 'Segunda-clave-2');
      expect(again.body.mustChangePassword).toBe(false);
    });

    it("revokes the caller's refresh tokens", async () => {
      const user = await newUser();
      expect(await activeTokens(user.id)).toBe(1);
      await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Segunda-clave-2' }, { token: user.token });
      expect(await activeTokens(user.id)).toBe(0);
      expectProblem(await t.post('/api/v1/auth/refresh', { accessToken: user.token, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
    });

    it('needs only a valid token: a cajero without any permission can change its own password', async () => {
      const cajero = await t.createUser('cajero');
      const res = await t.put(
        '/api/v1/users/me/password',
        { currentPassword: cajero.password, newPassword: 'Otra-clave-33' },
        { token: cajero.token },
      );
      expect(res.status).toBe(204);
    });

    it('rejects a wrong current password with 400 password_actual_incorrecto and changes nothing', async () => {
      const user = await newUser();
      expectProblem(
        await t.put('/api/v1/users/me/password', { currentPassword: 'No-es-la-clave-1', newPassword: 'Segunda-clave-2' }, { token: user.token }),
        400,
        'password_actual_incorrecto',
      );
      expect((await t.post('/api/v1/auth/login', { username: user.username, password: user.password })).status).toBe(200);
    });

    it('rejects a current password over 72 bytes with 400 validacion: bcrypt would compare only its first 72', async () => {
      const password = `Clave-segura-${'x'.repeat(59)}`; // exactly 72 bytes
      const user = await t.createUser('cajero', { password });
      const res = await t.put(
        '/api/v1/users/me/password',
        { currentPassword: `${password}-y-algo-más`, newPassword: 'Segunda-clave-2' },
        { token: user.token },
      );
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([
        { field: 'currentPassword', code: 'maxBytes', message: 'currentPassword debe ocupar como máximo 72 bytes en UTF-8' },
      ]);
      expect((await t.post('/api/v1/auth/login', { username: user.username, password })).status).toBe(200);
    });

    it('rejects a new password the policy refuses with 400 password_debil', async () => {
      const user = await newUser();
      for (const newPassword of ['Corta-1', 'solominusculas', user.username, `${'ñ'.repeat(35)}Ab1` /* 73 bytes */, user.password]) {
        expectProblem(
          await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword }, { token: user.token }),
          400,
          'password_debil',
        );
      }
    });

    it('audits usuario.password_change for the caller without any secret', async () => {
      const user = await newUser();
      await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Segunda-clave-2' }, { token: user.token });
      const [event] = await t.auditEvents({ action: 'usuario.password_change', targetId: String(user.id) });
      expect(event).toMatchObject({ target_type: 'usuario', actor_user_id: user.id });
      expect(event.metadata).toEqual({ before: { mustChangePassword: true }, after: { mustChangePassword: false } });
    });

    it('answers 401 without a token and 400 for a missing field', async () => {
      expectProblem(await t.put('/api/v1/users/me/password', { currentPassword: 'x', newPassword: 'Segunda-clave-2' }), 401, 'no_autenticado');
      const user = await newUser();
      expectProblem(await t.put('/api/v1/users/me/password', { newPassword: 'Segunda-clave-2' }, { token: user.token }), 400, 'validacion');
    });
  });

  describe('password reset', () => {
    it('answers a temporary password once; it signs in and mustChangePassword is then true', async () => {
      const user = await newUser();
      await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: 'Segunda-clave-2' }, { token: user.token });
      const res = await t.post(`/api/v1/users/${user.id}/password-reset`, undefined, { token: admin });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['temporaryPassword']);
      expect(res.body.temporaryPassword).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d).{16}$/);
      expectProblem(await t.post('/api/v1/auth/login', { username: user.username, password: 'Segunda-clave-2' }), 401, 'credenciales_invalidas');
      const session = await t.login(user.username, res.body.temporaryPassword);
      expect(session.body.mustChangePassword).toBe(true);
      const [row] = await t.query('SELECT password_hash FROM users WHERE id = $1', [user.id]);
      expect(row.password_hash).not.toContain(res.body.temporaryPassword);
    });

    it("revokes the user's refresh tokens", async () => {
      const user = await newUser();
      expect(await activeTokens(user.id)).toBe(1);
      await t.post(`/api/v1/users/${user.id}/password-reset`, undefined, { token: admin });
      expect(await activeTokens(user.id)).toBe(0);
    });

    it('audits usuario.password_reset with only the target id', async () => {
      const user = await newUser();
      await t.post(`/api/v1/users/${user.id}/password-reset`, undefined, { token: admin });
      const [event] = await t.auditEvents({ action: 'usuario.password_reset', targetId: String(user.id) });
      expect(event).toMatchObject({ target_type: 'usuario', actor_user_id: adminId });
      expect(event.metadata).toEqual({ targetId: String(user.id) });
    });

    it('answers 404 for a missing user and 403 to a reader', async () => {
      expectProblem(await t.post('/api/v1/users/999999/password-reset', undefined, { token: admin }), 404, 'no_encontrado');
      const auditor = await t.createUser('auditor');
      expectProblem(await t.post(`/api/v1/users/${auditor.id}/password-reset`, undefined, { token: auditor.token }), 403, 'permiso_denegado');
    });
  });

  it('never writes a password, temporary password or hash into audit metadata', async () => {
    const user = await newUser('Clave-inicial-77');
    await t.put('/api/v1/users/me/password', { currentPassword: 'Clave-inicial-77', newPassword: 'Clave-cambiada-88' }, { token: user.token });
    const reset = await t.post(`/api/v1/users/${user.id}/password-reset`, undefined, { token: admin });
    const secrets = ['Clave-inicial-77', 'Clave-cambiada-88', reset.body.temporaryPassword as string];
    const rows = await t.query('SELECT action, metadata FROM audit_events');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      const text = typeof row.metadata === 'string' ? row.metadata : JSON.stringify(row.metadata);
      for (const secret of secrets) expect([row.action, text.includes(secret)]).toEqual([row.action, false]);
      expect([row.action, /\$2[aby]\$|"(password|newPassword|currentPassword|temporaryPassword|passwordHash)"/i.test(text ?? '')]).toEqual([
        row.action,
        false,
      ]);
    }
  });
});
