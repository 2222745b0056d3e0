import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ADMIN_USERNAME, expectProblem, TestApp } from '../support/test-app.js';

const USERS_MANAGE = 'administracion:usuarios:gestionar';
const ROLES_MANAGE = 'administracion:roles:gestionar';

/**
 * Anti-lockout: some active user must keep both administracion:usuarios:gestionar and
 * administracion:roles:gestionar. Every test starts (and ends) with the bootstrap `admin` as the
 * only such user.
 */
describe('anti-lockout', () => {
  let t: TestApp;
  let adminId: number;

  beforeAll(async () => {
    t = await TestApp.create();
    adminId = Number((await t.query('SELECT id FROM users WHERE username = $1', [ADMIN_USERNAME]))[0].id);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Active users holding both administration permissions through an active role or overrides. */
  const administrators = async (): Promise<number[]> => {
    const users = await t.get('/api/v1/users', { token: await t.adminToken(), query: { activo: true, pageSize: 100 } });
    const ids: number[] = [];
    for (const u of users.body.items) {
      const view = await t.get(`/api/v1/users/${u.id}/permisos`, { token: await t.adminToken() });
      if (view.body.efectivos.includes(USERS_MANAGE) && view.body.efectivos.includes(ROLES_MANAGE)) ids.push(u.id);
    }
    return ids;
  };
  beforeEach(async () => {
    expect(await administrators()).toEqual([adminId]);
  });

  /** A user manager who is not an administrator: supervisor + usuarios:gestionar. */
  const userManager = () => t.createUser('supervisor', { overrides: { granted: [USERS_MANAGE], denied: [] } });
  /** A role manager who is not an administrator: supervisor + roles:gestionar. */
  const roleManager = () => t.createUser('supervisor', { overrides: { granted: [ROLES_MANAGE], denied: [] } });
  /** Every permission of the catalog: what the installed admin holds. */
  const everyPermission = async (): Promise<string[]> =>
    ((await t.get('/api/v1/permisos', { token: await t.adminToken() })).body as Array<{ codigo: string }>).map((p) => p.codigo);
  const adminFields = { nombre: 'Administrador', apellido: 'Sistema', email: 'admin@localhost' };

  it('refuses self-deactivation with 409 anti_lockout', async () => {
    expectProblem(await t.post(`/api/v1/users/${adminId}/deactivate`, undefined, { token: await t.adminToken() }), 409, 'anti_lockout');
  });

  it('refuses a change of the caller’s own role with 409, while other own fields may change', async () => {
    expectProblem(
      await t.put(`/api/v1/users/${adminId}`, { ...adminFields, rol: 'supervisor' }, { token: await t.adminToken() }),
      409,
      'anti_lockout',
    );
    const same = await t.put(`/api/v1/users/${adminId}`, { ...adminFields, nombre: 'Admin', rol: 'admin' }, { token: await t.adminToken() });
    expect(same.status).toBe(200);
    expect((await t.put(`/api/v1/users/${adminId}`, { ...adminFields, rol: 'admin' }, { token: await t.adminToken() })).status).toBe(200);
  });

  it('lets a user manager neither deactivate nor re-role the last administrator (the delegation rule answers 403 before anti-lockout), and another administrator deactivate it', async () => {
    const manager = await userManager();
    expectProblem(await t.post(`/api/v1/users/${adminId}/deactivate`, undefined, { token: manager.token }), 403, 'privilegio_insuficiente');
    expectProblem(
      await t.put(`/api/v1/users/${adminId}`, { ...adminFields, rol: 'supervisor' }, { token: manager.token }),
      403,
      'privilegio_insuficiente',
    );
    expect((await t.get(`/api/v1/users/${adminId}`, { token: await t.adminToken() })).body).toMatchObject({ activo: true, rol: 'admin' });

    const second = await t.createUser('admin');
    expect((await t.post(`/api/v1/users/${adminId}/deactivate`, undefined, { token: second.token })).status).toBe(200);
    expect((await t.post(`/api/v1/users/${adminId}/reactivate`, undefined, { token: second.token })).status).toBe(200);
    expect((await t.post(`/api/v1/users/${second.id}/deactivate`, undefined, { token: await t.adminToken() })).status).toBe(200);
  });

  it('does not count an inactive administrator', async () => {
    const manager = await roleManager();
    await t.createUser('admin', { activo: false });
    const before = (await t.get('/api/v1/roles/admin/permisos', { token: await t.adminToken() })).body.permisos as string[];
    expectProblem(
      await t.put('/api/v1/roles/admin/permisos', { permisos: before.filter((c) => c !== USERS_MANAGE) }, { token: manager.token }),
      409,
      'anti_lockout',
    );
  });

  it('leaves the last administrator no way to deny itself an administration permission: its own overrides are refused (403) and nothing changes', async () => {
    for (const code of [ROLES_MANAGE, USERS_MANAGE]) {
      expectProblem(
        await t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [code] }, { token: await t.adminToken() }),
        403,
        'privilegio_insuficiente',
      );
    }
    expect((await t.get(`/api/v1/users/${adminId}/permisos`, { token: await t.adminToken() })).body.denied).toEqual([]);
  });

  it('counts an administrator made by overrides: then a deny on the installed admin is accepted', async () => {
    const other = await t.createUser('consulta', { overrides: { granted: await everyPermission(), denied: [] } });
    const res = await t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [ROLES_MANAGE] }, { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body.efectivos).not.toContain(ROLES_MANAGE);
    // restore: the other administrator clears the admin's overrides, then the admin deactivates it
    expect((await t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [] }, { token: other.token })).status).toBe(200);
    expect((await t.post(`/api/v1/users/${other.id}/deactivate`, undefined, { token: await t.adminToken() })).status).toBe(200);
  });

  it('refuses to take an administration permission away from the role of the last administrator', async () => {
    const manager = await roleManager();
    const before = (await t.get('/api/v1/roles/admin/permisos', { token: await t.adminToken() })).body.permisos as string[];
    const res = await t.put('/api/v1/roles/admin/permisos', { permisos: before.filter((c) => c !== ROLES_MANAGE) }, { token: manager.token });
    expectProblem(res, 409, 'anti_lockout');
    // a stale If-Match hides neither this 409 nor the 403 of the stronger holders behind it
    const stale = await t.request('PUT', '/api/v1/roles/admin/permisos', {
      token: manager.token,
      body: { permisos: before.filter((c) => c !== ROLES_MANAGE) },
      headers: { 'if-match': '"version-vieja"' },
    });
    expectProblem(stale, 409, 'anti_lockout');
    expect((await t.get('/api/v1/roles/admin/permisos', { token: await t.adminToken() })).body.permisos).toEqual(before);
    expect(await t.auditEvents({ action: 'rol.permisos_update', targetId: 'admin' })).toHaveLength(0);
  });

  it('refuses to deactivate the role of the last administrator (409 rol_en_uso comes first)', async () => {
    expectProblem(await t.delete('/api/v1/roles/admin', { token: await t.adminToken() }), 409, 'rol_en_uso');
  });

  it('lets only one of two concurrent removals of the last two administrators succeed', async () => {
    const first = await t.createUser('admin');
    const second = await t.createUser('admin');
    // leave first and second as the only two administrators
    expect((await t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [ROLES_MANAGE] }, { token: first.token })).status).toBe(
      200,
    );

    const [a, b] = await Promise.all([
      t.post(`/api/v1/users/${second.id}/deactivate`, undefined, { token: first.token }),
      t.post(`/api/v1/users/${first.id}/deactivate`, undefined, { token: second.token }),
    ]);
    // The loser gets 409 anti_lockout when it passed the guard before the winner committed, or
    // 401 when the winner had already deactivated it; never a second 200.
    const loser = [a, b].find((r) => r.status !== 200);
    expect([a, b].filter((r) => r.status === 200)).toHaveLength(1);
    expect([
      [409, 'anti_lockout'],
      [401, 'no_autenticado'],
    ]).toContainEqual([loser?.status, loser?.body.code]);
    const active = await t.query('SELECT id FROM users WHERE id IN ($1, $2) AND activo = $3', [first.id, second.id, true]);
    expect(active).toHaveLength(1);

    const survivor = a.status === 200 ? first : second;
    expect((await t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [] }, { token: survivor.token })).status).toBe(200);
    expect((await t.post(`/api/v1/users/${survivor.id}/deactivate`, undefined, { token: await t.adminToken() })).status).toBe(200);
  });
});
