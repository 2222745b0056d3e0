import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ADMIN_USERNAME, expectProblem, type HttpResult, TestApp } from '../support/test-app.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';

const USER_FIELDS = ['activo', 'apellido', 'createdAt', 'email', 'id', 'mustChangePassword', 'nombre', 'rol', 'ultimoLogin', 'updatedAt', 'username'];

describe('users', () => {
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

  const unique = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;
  const body = (overrides: Record<string, unknown> = {}) => {
    const username = unique('user');
    return {
      username,
      password: 'Clave-segura-1',
      nombre: 'Ana',
      apellido: 'García',
      email: `${username}@example.test`,
      rol: 'consulta',
      ...overrides,
    };
  };
  const create = async (overrides: Record<string, unknown> = {}): Promise<HttpResult> => {
    const res = await t.post('/api/v1/users', body(overrides), { token: admin });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res;
  };

  describe('create', () => {
    it('answers 201 with the UsuarioDto, a Location and mustChangePassword true', async () => {
      const input = body({ rol: 'cajero' });
      const res = await t.post('/api/v1/users', input, { token: admin });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(USER_FIELDS);
      expect(res.body).toMatchObject({
        username: input.username,
        nombre: 'Ana',
        apellido: 'García',
        email: input.email,
        rol: 'cajero',
        activo: true,
        mustChangePassword: true,
        ultimoLogin: null,
      });
      expect(res.headers.location).toBe(`/api/v1/users/${res.body.id}`);
      expect((await t.get(res.headers.location as string, { token: admin })).body).toEqual(res.body);
    });

    it('stores the password only as a bcrypt hash and never answers it', async () => {
      const input = body();
      const res = await t.post('/api/v1/users', input, { token: admin });
      expect(res.text).not.toContain(input.password);
      expect(res.text).not.toMatch(/"password|hash"|\$2[aby]\$/i);
      const [row] = await t.query('SELECT password_hash FROM users WHERE id = $1', [res.body.id]);
      expect(row.password_hash).toMatch(/^\$2[aby]\$\d{2}\$/);
      expect(row.password_hash).not.toContain(input.password);
    });

    it('audits usuario.create with the admin from sub as actor and no password', async () => {
      const input = body({ rol: 'vendedor' });
      const res = await t.post('/api/v1/users', input, { token: admin });
      const [event] = await t.auditEvents({ action: 'usuario.create', targetId: String(res.body.id) });
      expect(event).toMatchObject({ target_type: 'usuario', actor_user_id: adminId });
      expect(event.metadata).toEqual({ after: { username: input.username, nombre: 'Ana', apellido: 'García', email: input.email, rol: 'vendedor' } });
    });

    it('rejects an unknown role with 400', async () => {
      expectProblem(await t.post('/api/v1/users', body({ rol: 'no_existe' }), { token: admin }), 400, 'validacion');
    });

    it('rejects an inactive role with 400', async () => {
      const codigo = unique('inactivo');
      expect((await t.post('/api/v1/roles', { codigo, nombre: 'Inactivo' }, { token: admin })).status).toBe(201);
      expect((await t.delete(`/api/v1/roles/${codigo}`, { token: admin })).status).toBe(204);
      const res = await t.post('/api/v1/users', body({ rol: codigo }), { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'rol' })]);
    });

    it('rejects a duplicate username with 409 duplicado', async () => {
      const first = await create();
      expectProblem(await t.post('/api/v1/users', body({ username: first.body.username }), { token: admin }), 409, 'duplicado');
    });

    it('answers exactly one 201 and nineteen 409 to 20 concurrent creates of one username', async () => {
      const input = body();
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post('/api/v1/users', input, { token: admin })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('duplicado');
      expect(await t.query('SELECT id FROM users WHERE username = $1', [input.username])).toHaveLength(1);
    });

    it('rejects a username outside 3..50 characters of [A-Za-z0-9._-] with 400', async () => {
      for (const username of ['ab', 'con espacio', 'ñandú', 'x'.repeat(51), 'a/b']) {
        expectProblem(await t.post('/api/v1/users', body({ username }), { token: admin }), 400, 'validacion');
      }
    });

    it('rejects a weak password with 400 password_debil', async () => {
      const username = unique('weak');
      for (const password of ['Corta-1', 'todoenminusculas', username, `${'ñ'.repeat(35)}Ab1` /* 73 bytes */]) {
        expectProblem(await t.post('/api/v1/users', body({ username, password }), { token: admin }), 400, 'password_debil');
      }
    });

    it('rejects missing fields, a bad email and unknown properties with 400', async () => {
      const { nombre: _n, ...withoutNombre } = body();
      expectProblem(await t.post('/api/v1/users', withoutNombre, { token: admin }), 400, 'validacion');
      expectProblem(await t.post('/api/v1/users', body({ email: 'no-es-un-email' }), { token: admin }), 400, 'validacion');
      expectProblem(await t.post('/api/v1/users', body({ activo: false }), { token: admin }), 400, 'validacion');
    });

    it('rejects an email holding a character that shows as nothing or as something else (bidi override, zero-width space, soft hyphen, unassigned)', async () => {
      for (const email of ['a@x.co\u202em', '\u200ba@x.com', 'a@x.com\u00ad', 'a@x.com\u2060', 'a@x.\u0378\u0379', 'a@x.\ufffd\ufffd']) {
        const res = await t.post('/api/v1/users', body({ email }), { token: admin });
        expectProblem(res, 400, 'validacion');
        expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('email');
      }
      expect(
        (await t.post('/api/v1/users', body({ username: unique('mail').toLowerCase(), email: 'ana@diario.com.ar' }), { token: admin })).status,
      ).toBe(201);
    });
  });

  describe('read', () => {
    it('answers 404 for a missing user and 400 for a bad id', async () => {
      expectProblem(await t.get('/api/v1/users/999999', { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get('/api/v1/users/abc', { token: admin }), 400, 'validacion');
    });

    it('lists users paged, ordered by username, filtered by search, rol and activo', async () => {
      const tag = unique('lst').toLowerCase();
      const a = await create({ username: `${tag}_a`, rol: 'cajero' });
      const b = await create({ username: `${tag}_b`, rol: 'vendedor', apellido: 'Zúñiga' });
      await create({ username: `${tag}_c`, rol: 'cajero' });
      expect((await t.post(`/api/v1/users/${b.body.id}/deactivate`, undefined, { token: admin })).status).toBe(200);

      const all = await t.get('/api/v1/users', { token: admin, query: { search: tag.toUpperCase(), pageSize: 2 } });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ total: 3, page: 1, pageSize: 2 });
      expect(all.body.items.map((u: any) => u.username)).toEqual([`${tag}_a`, `${tag}_b`]);
      expect(Object.keys(all.body.items[0]).sort()).toEqual(USER_FIELDS);

      const cajeros = await t.get('/api/v1/users', { token: admin, query: { search: tag, rol: 'cajero' } });
      expect(cajeros.body.items.map((u: any) => u.username)).toEqual([`${tag}_a`, `${tag}_c`]);
      const inactive = await t.get('/api/v1/users', { token: admin, query: { search: tag, activo: false } });
      expect(inactive.body.items.map((u: any) => u.id)).toEqual([b.body.id]);
      const byApellido = await t.get('/api/v1/users', { token: admin, query: { search: 'zúñiga' } });
      expect(byApellido.body.items.map((u: any) => u.id)).toContain(b.body.id);
      expect(byApellido.body.items.map((u: any) => u.id)).not.toContain(a.body.id);
    });

    it('treats % and _ in search literally', async () => {
      const res = await t.get('/api/v1/users', { token: admin, query: { search: '%' } });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(0);
    });

    it('rejects out-of-range paging and bad filters with 400', async () => {
      expectProblem(await t.get('/api/v1/users', { token: admin, query: { pageSize: 101 } }), 400, 'validacion');
      expectProblem(await t.get('/api/v1/users', { token: admin, query: { page: 0 } }), 400, 'validacion');
      expectProblem(await t.get('/api/v1/users', { token: admin, query: { activo: 'si' } }), 400, 'validacion');
      expectProblem(await t.get('/api/v1/users', { token: admin, query: { rol: 'Admin' } }), 400, 'validacion');
    });
  });

  describe('update', () => {
    it('replaces the editable fields and audits usuario.update with before and after', async () => {
      const created = await create({ rol: 'cajero' });
      const id = created.body.id;
      const res = await t.put(
        `/api/v1/users/${id}`,
        { nombre: 'Beatriz', apellido: 'López', email: 'beatriz@example.test', rol: 'supervisor' },
        { token: admin },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id,
        username: created.body.username,
        nombre: 'Beatriz',
        apellido: 'López',
        email: 'beatriz@example.test',
        rol: 'supervisor',
      });
      const [event] = await t.auditEvents({ action: 'usuario.update', targetId: String(id) });
      expect(event).toMatchObject({ target_type: 'usuario', actor_user_id: adminId });
      expect(event.metadata).toEqual({
        before: { nombre: 'Ana', apellido: 'García', email: created.body.email, rol: 'cajero' },
        after: { nombre: 'Beatriz', apellido: 'López', email: 'beatriz@example.test', rol: 'supervisor' },
      });
    });

    it("revokes the user's refresh tokens: their refresh then answers 401", async () => {
      const user = await t.createUser('cajero');
      const bystander = await t.createUser('cajero');
      expect(await t.query('SELECT 1 FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id])).toHaveLength(1);
      const res = await t.put(
        `/api/v1/users/${user.id}`,
        { nombre: 'Otro', apellido: 'Nombre', email: 'otro@example.test', rol: 'cajero' },
        { token: admin },
      );
      expect(res.status).toBe(200);
      const active = await t.query('SELECT 1 FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id]);
      expect(active).toHaveLength(0);
      expectProblem(await t.post('/api/v1/auth/refresh', { accessToken: user.token, refreshToken: user.refreshToken }), 401, 'refresh_invalido');
      // the same request for a user nobody updated still renews
      expect((await t.post('/api/v1/auth/refresh', { accessToken: bystander.token, refreshToken: bystander.refreshToken })).status).toBe(200);
    });

    it('rejects a username in the body with 400 campo_inmutable', async () => {
      const created = await create();
      const res = await t.put(
        `/api/v1/users/${created.body.id}`,
        { nombre: 'X', apellido: 'Y', email: 'x@example.test', rol: 'consulta', username: created.body.username },
        { token: admin },
      );
      expectProblem(res, 400, 'campo_inmutable');
    });

    it('rejects a change to an unknown or inactive role with 400, and answers 404 for a missing user', async () => {
      const created = await create();
      const fields = { nombre: 'X', apellido: 'Y', email: 'x@example.test' };
      expectProblem(await t.put(`/api/v1/users/${created.body.id}`, { ...fields, rol: 'no_existe' }, { token: admin }), 400, 'validacion');
      expectProblem(await t.put('/api/v1/users/999999', { ...fields, rol: 'consulta' }, { token: admin }), 404, 'no_encontrado');
    });
  });

  describe('deactivate and reactivate', () => {
    it("deactivates, revokes the user's tokens, locks the user out at once and audits usuario.deactivate", async () => {
      const user = await t.createUser('supervisor');
      expect((await t.get('/api/v1/users', { token: user.token })).status).toBe(200);
      const res = await t.post(`/api/v1/users/${user.id}/deactivate`, undefined, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: user.id, activo: false });
      expect(await t.query('SELECT 1 FROM refresh_tokens WHERE user_id = $1 AND revoked_at IS NULL', [user.id])).toHaveLength(0);
      expectProblem(await t.get('/api/v1/users', { token: user.token }), 401, 'no_autenticado');
      const [event] = await t.auditEvents({ action: 'usuario.deactivate', targetId: String(user.id) });
      expect(event).toMatchObject({
        target_type: 'usuario',
        actor_user_id: adminId,
        metadata: { before: { activo: true }, after: { activo: false } },
      });
    });

    it('reactivates a user whose role was deactivated meanwhile: 200, and the inactive role contributes no permissions', async () => {
      const codigo = unique('apagado');
      expect((await t.post('/api/v1/roles', { codigo, nombre: 'Apagado' }, { token: admin })).status).toBe(201);
      expect((await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['administracion:medios:gestionar'] }, { token: admin })).status).toBe(200);
      const user = await t.createUser(codigo);
      expect((await t.post(`/api/v1/users/${user.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.delete(`/api/v1/roles/${codigo}`, { token: admin })).status).toBe(204);
      const reactivated = await t.post(`/api/v1/users/${user.id}/reactivate`, undefined, { token: admin });
      expect(reactivated.status).toBe(200);
      expect(reactivated.body).toMatchObject({ id: user.id, rol: codigo, activo: true });
      expect(await t.auditEvents({ action: 'usuario.reactivate', targetId: String(user.id) })).toHaveLength(1);
      const view = await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin });
      expect(view.body).toMatchObject({ rol: codigo, rolPermisos: [], efectivos: [] });
      // signed in, the user holds nothing the role would give
      const login = await t.post('/api/v1/auth/login', { username: user.username, password: user.password });
      expect(login.status).toBe(200);
      expect(login.body.permisos).toEqual([]);
      expectProblem(
        await t.post('/api/v1/admin/medios', { codigo: unique('M').toUpperCase(), nombre: 'x' }, { token: login.body.accessToken }),
        403,
        'permiso_denegado',
      );
      // once the role is active again, its permissions are the user's again
      expect((await t.post(`/api/v1/roles/${codigo}/reactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin })).body.efectivos).toEqual(['administracion:medios:gestionar']);
    });

    it('answers a reactivation racing the role’s deactivation without a 5xx; the user then holds no permission of an inactive role', async () => {
      for (let round = 0; round < 6; round++) {
        const codigo = unique(`carrera${round}`);
        expect((await t.post('/api/v1/roles', { codigo, nombre: 'Carrera' }, { token: admin })).status).toBe(201);
        expect((await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['administracion:medios:gestionar'] }, { token: admin })).status).toBe(
          200,
        );
        const user = await t.createUser(codigo);
        expect((await t.post(`/api/v1/users/${user.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
        const [reactivate, remove] = await Promise.all([
          t.post(`/api/v1/users/${user.id}/reactivate`, undefined, { token: admin }),
          t.delete(`/api/v1/roles/${codigo}`, { token: admin }),
        ]);
        expect(reactivate.status).toBe(200);
        // the role's deactivation is refused (409 rol_en_uso) only when the reactivation committed first
        expect([204, 409]).toContain(remove.status);
        const roleActive = (await t.get(`/api/v1/roles/${codigo}`, { token: admin })).body.activo as boolean;
        const efectivos = (await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin })).body.efectivos as string[];
        expect({ round, efectivos }).toEqual({ round, efectivos: roleActive ? ['administracion:medios:gestionar'] : [] });
      }
    });

    itSwitchesActivationIdempotently('user', () => ({
      t,
      token: admin,
      actorId: adminId,
      url: (id) => `/api/v1/users/${id}`,
      create: async () => (await create()).body,
      targetType: 'usuario',
      keeps: ['username', 'rol'],
    }));
  });

  describe('access', () => {
    it('lets a reader (auditor) read but not write', async () => {
      const auditor = await t.createUser('auditor');
      expect((await t.get('/api/v1/users', { token: auditor.token })).status).toBe(200);
      expect((await t.get(`/api/v1/users/${auditor.id}/permisos`, { token: auditor.token })).status).toBe(200);
      expectProblem(await t.post('/api/v1/users', body(), { token: auditor.token }), 403, 'permiso_denegado');
    });
  });
});
