import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ADMIN_PASSWORD, ADMIN_USERNAME, type CreatedUser, expectProblem, type HttpResult, TestApp } from '../support/test-app.js';
import { lockRowSql, raceWithHeldRows } from '../support/test-database.js';
import { decodeJwt } from '../auth/support/auth-helpers.js';

const USERS_MANAGE = 'administracion:usuarios:gestionar';
const ROLES_MANAGE = 'administracion:roles:gestionar';
const AUDIT_READ = 'administracion:auditoria:ver';
const RUBROS = 'catalogo:rubros:gestionar';

/**
 * The delegation rule, written as the attacks it stops: an administrator hands out only what it
 * holds, acts only on users it outranks or equals, and never changes its own overrides, its own
 * role's permission set or — through the administrators' reset — its own password. Each refusal
 * is 403 `privilegio_insuficiente`, changes nothing, writes no audit event and leaves a
 * `permission.denied` security event; each allowed counterpart still succeeds.
 */
describe('delegation rule: administrators cannot escalate', () => {
  let t: TestApp;
  let admin: string;
  let adminId: number;
  /** a user whose role holds only administracion:usuarios:gestionar */
  let userManager: CreatedUser;
  /** a user whose role holds only administracion:roles:gestionar */
  let roleManager: CreatedUser;
  const uid = () => randomBytes(4).toString('hex');

  /** A role with exactly these permissions, made through the API. */
  const roleWith = async (permisos: string[]): Promise<string> => {
    const codigo = `r_${uid()}`;
    expect((await t.post('/api/v1/roles', { codigo, nombre: codigo }, { token: admin })).status).toBe(201);
    expect((await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos }, { token: admin })).status).toBe(200);
    return codigo;
  };
  const newUserBody = (rol: string) => {
    const username = `d_${uid()}`;
    return { username, password: `Clave-${uid()}-segura`, nombre: 'Dora', apellido: 'Paz', email: `${username}@example.test`, rol };
  };
  const auditCount = async () => Number((await t.query('SELECT count(*) AS n FROM audit_events'))[0].n);
  const lastDenial = async () => (await t.securityEvents('permission.denied'))[0];

  /** Sends the attack and checks every part of a refusal: 403 code, no audit event, the security event. */
  const expectRefused = async (
    caller: { id: number },
    attack: () => Promise<HttpResult>,
    expected: { required: string[]; endpoint: string; method: string },
  ) => {
    const events = await auditCount();
    const res = await attack();
    expectProblem(res, 403, 'privilegio_insuficiente');
    expect(await auditCount()).toBe(events);
    const denial = await lastDenial();
    expect(denial).toMatchObject({ action: 'permission.denied', result: 'failure', actor_user_id: caller.id });
    expect(denial.metadata).toEqual({ reason: 'privilege_escalation', ...expected });
    return res;
  };

  beforeAll(async () => {
    t = await TestApp.create();
    admin = await t.adminToken();
    adminId = Number((await t.query('SELECT id FROM users WHERE username = $1', [ADMIN_USERNAME]))[0].id);
    userManager = await t.createUser(await roleWith([USERS_MANAGE]));
    roleManager = await t.createUser(await roleWith([ROLES_MANAGE]));
  });
  afterAll(async () => {
    await t.close();
  });

  describe('a user manager (its role holds only usuarios:gestionar) does not become an administrator', () => {
    it('cannot create a user with the role admin: 403, no user, no audit event, the missing codes in the security event', async () => {
      const body = newUserBody('admin');
      const res = await expectRefused(userManager, () => t.post('/api/v1/users', body, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE, AUDIT_READ, RUBROS]) as unknown as string[],
        endpoint: '/api/v1/users',
        method: 'POST',
      });
      expect(res.body.detail).toContain(ROLES_MANAGE);
      expect(await t.query('SELECT id FROM users WHERE username = $1', [body.username])).toHaveLength(0);
      expect((await lastDenial()).metadata.required).not.toContain(USERS_MANAGE);
    });

    it('can create users with a role whose permissions it holds: none (consulta) or its own', async () => {
      expect((await t.post('/api/v1/users', newUserBody('consulta'), { token: userManager.token })).status).toBe(201);
      const own = (await t.get(`/api/v1/users/${userManager.id}`, { token: admin })).body.rol as string;
      expect((await t.post('/api/v1/users', newUserBody(own), { token: userManager.token })).status).toBe(201);
    });

    it('cannot grant itself administracion:roles:gestionar through its own overrides, nor even re-send its current ones', async () => {
      const endpoint = '/api/v1/users/:id/permisos/overrides';
      await expectRefused(
        userManager,
        () => t.put(`/api/v1/users/${userManager.id}/permisos/overrides`, { granted: [ROLES_MANAGE], denied: [] }, { token: userManager.token }),
        { required: [], endpoint, method: 'PUT' },
      );
      await expectRefused(
        userManager,
        () => t.put(`/api/v1/users/${userManager.id}/permisos/overrides`, { granted: [], denied: [] }, { token: userManager.token }),
        { required: [], endpoint, method: 'PUT' },
      );
      expect((await t.get(`/api/v1/users/${userManager.id}/permisos`, { token: admin })).body.efectivos).toEqual([USERS_MANAGE]);
    });

    it('cannot grant another user a permission it lacks, but can grant one it holds', async () => {
      const other = await t.createUser('consulta');
      await expectRefused(
        userManager,
        () => t.put(`/api/v1/users/${other.id}/permisos/overrides`, { granted: [ROLES_MANAGE], denied: [] }, { token: userManager.token }),
        { required: [ROLES_MANAGE], endpoint: '/api/v1/users/:id/permisos/overrides', method: 'PUT' },
      );
      const allowed = await t.put(
        `/api/v1/users/${other.id}/permisos/overrides`,
        { granted: [USERS_MANAGE], denied: [] },
        { token: userManager.token },
      );
      expect(allowed.status).toBe(200);
      expect(allowed.body.efectivos).toEqual([USERS_MANAGE]);
    });

    it('cannot hand out a permission by lifting a deny: removing it from denied counts as granting it', async () => {
      // a user of a strong role, brought within the manager's reach by denying what the manager lacks
      const strongRole = await roleWith([USERS_MANAGE, ROLES_MANAGE, RUBROS]);
      const held = await t.createUser(strongRole, { overrides: { granted: [], denied: [ROLES_MANAGE, RUBROS] } });
      const endpoint = '/api/v1/users/:id/permisos/overrides';
      await expectRefused(
        userManager,
        () => t.put(`/api/v1/users/${held.id}/permisos/overrides`, { granted: [], denied: [] }, { token: userManager.token }),
        { required: [ROLES_MANAGE, RUBROS], endpoint, method: 'PUT' },
      );
      await expectRefused(
        userManager,
        () => t.put(`/api/v1/users/${held.id}/permisos/overrides`, { granted: [], denied: [ROLES_MANAGE] }, { token: userManager.token }),
        { required: [RUBROS], endpoint, method: 'PUT' },
      );
      expect((await t.get(`/api/v1/users/${held.id}/permisos`, { token: admin })).body.efectivos).toEqual([USERS_MANAGE]);
      // denying one more, or re-sending the same denies, hands out nothing
      const narrower = await t.put(
        `/api/v1/users/${held.id}/permisos/overrides`,
        { granted: [], denied: [ROLES_MANAGE, RUBROS, USERS_MANAGE] },
        { token: userManager.token },
      );
      expect(narrower.status).toBe(200);
      expect(narrower.body.efectivos).toEqual([]);
      // lifting the deny of a permission the manager holds is handing out what it holds
      const lifted = await t.put(
        `/api/v1/users/${held.id}/permisos/overrides`,
        { granted: [], denied: [ROLES_MANAGE, RUBROS] },
        { token: userManager.token },
      );
      expect(lifted.status).toBe(200);
      expect(lifted.body.efectivos).toEqual([USERS_MANAGE]);
    });

    it("cannot reset the admin's password (so it cannot sign in as admin), but can reset a weaker user's", async () => {
      await expectRefused(userManager, () => t.post(`/api/v1/users/${adminId}/password-reset`, undefined, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id/password-reset',
        method: 'POST',
      });
      expect((await t.post('/api/v1/auth/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD })).status).toBe(200);
      const cajero = await t.createUser('cajero');
      const reset = await t.post(`/api/v1/users/${cajero.id}/password-reset`, undefined, { token: userManager.token });
      expect(reset.status).toBe(200);
      expect((await t.post('/api/v1/auth/login', { username: cajero.username, password: reset.body.temporaryPassword })).status).toBe(200);
    });

    it('cannot deactivate, reactivate or update the admin, nor give a weaker user the admin role; it can do all of that to a weaker user', async () => {
      const adminFields = { nombre: 'Administrador', apellido: 'Sistema', email: 'admin@localhost', rol: 'admin' };
      await expectRefused(userManager, () => t.post(`/api/v1/users/${adminId}/deactivate`, undefined, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id/deactivate',
        method: 'POST',
      });
      await expectRefused(userManager, () => t.post(`/api/v1/users/${adminId}/reactivate`, undefined, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id/reactivate',
        method: 'POST',
      });
      await expectRefused(userManager, () => t.put(`/api/v1/users/${adminId}`, { ...adminFields, nombre: 'Otro' }, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id',
        method: 'PUT',
      });
      expect((await t.get(`/api/v1/users/${adminId}`, { token: admin })).body).toMatchObject({ activo: true, nombre: 'Administrador' });

      const weak = await t.createUser('consulta');
      const fields = { nombre: 'Wen', apellido: 'Paz', email: `${weak.username}@example.test` };
      await expectRefused(userManager, () => t.put(`/api/v1/users/${weak.id}`, { ...fields, rol: 'admin' }, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id',
        method: 'PUT',
      });
      expect((await t.get(`/api/v1/users/${weak.id}`, { token: admin })).body.rol).toBe('consulta');
      expect((await t.put(`/api/v1/users/${weak.id}`, { ...fields, rol: 'cajero' }, { token: userManager.token })).status).toBe(200);
      expect((await t.post(`/api/v1/users/${weak.id}/deactivate`, undefined, { token: userManager.token })).status).toBe(200);
      expect((await t.post(`/api/v1/users/${weak.id}/reactivate`, undefined, { token: userManager.token })).status).toBe(200);
    });

    it('cannot act on a user who holds one permission more through an override, and can once it holds that permission too', async () => {
      const target = await t.createUser('consulta', { overrides: { granted: [RUBROS], denied: [] } });
      await expectRefused(userManager, () => t.post(`/api/v1/users/${target.id}/deactivate`, undefined, { token: userManager.token }), {
        required: [RUBROS],
        endpoint: '/api/v1/users/:id/deactivate',
        method: 'POST',
      });
      const stronger = await t.createUser('consulta', { overrides: { granted: [USERS_MANAGE, RUBROS], denied: [] } });
      expect((await t.post(`/api/v1/users/${target.id}/deactivate`, undefined, { token: stronger.token })).status).toBe(200);
    });

    it("cannot end the admin's sessions (the admin's token keeps working), but can end a weaker user's", async () => {
      const adminToken = await t.adminToken();
      const [adminSession] = (await t.get(`/api/v1/users/${adminId}/sessions`, { token: userManager.token })).body as Array<{
        id: string;
        current: boolean;
      }>;
      expect(adminSession).toBeDefined();
      await expectRefused(userManager, () => t.delete(`/api/v1/users/${adminId}/sessions/${adminSession!.id}`, { token: userManager.token }), {
        required: expect.arrayContaining([ROLES_MANAGE]) as unknown as string[],
        endpoint: '/api/v1/users/:id/sessions/:sessionId',
        method: 'DELETE',
      });
      const sessions = (await t.get(`/api/v1/users/${adminId}/sessions`, { token: userManager.token })).body as Array<{ id: string }>;
      expect(sessions.map((s) => s.id)).toContain(adminSession!.id);
      expect((await t.get('/api/v1/auth/me', { token: adminToken })).status).toBe(200);

      const cajero = await t.createUser('cajero');
      const [cajeroSession] = (await t.get(`/api/v1/users/${cajero.id}/sessions`, { token: userManager.token })).body as Array<{ id: string }>;
      expect((await t.delete(`/api/v1/users/${cajero.id}/sessions/${cajeroSession!.id}`, { token: userManager.token })).status).toBe(204);
      expect((await t.get('/api/v1/auth/me', { token: cajero.token })).status).toBe(401);
    });
  });

  describe('a role manager (its role holds only roles:gestionar) does not give itself everything', () => {
    it("cannot change its own role's permission set, not even to one it already holds", async () => {
      const own = (await t.get(`/api/v1/users/${roleManager.id}`, { token: admin })).body.rol as string;
      const every = ((await t.get('/api/v1/permisos', { token: admin })).body as Array<{ codigo: string }>).map((p) => p.codigo);
      await expectRefused(roleManager, () => t.put(`/api/v1/roles/${own}/permisos`, { permisos: every }, { token: roleManager.token }), {
        required: [],
        endpoint: '/api/v1/roles/:codigo/permisos',
        method: 'PUT',
      });
      await expectRefused(roleManager, () => t.put(`/api/v1/roles/${own}/permisos`, { permisos: [ROLES_MANAGE] }, { token: roleManager.token }), {
        required: [],
        endpoint: '/api/v1/roles/:codigo/permisos',
        method: 'PUT',
      });
      expect((await t.get(`/api/v1/roles/${own}/permisos`, { token: admin })).body.permisos).toEqual([ROLES_MANAGE]);
    });

    it('cannot add to another role a permission it lacks, and can add one it holds or remove any', async () => {
      const other = await roleWith([RUBROS]);
      await expectRefused(
        roleManager,
        () => t.put(`/api/v1/roles/${other}/permisos`, { permisos: [RUBROS, USERS_MANAGE] }, { token: roleManager.token }),
        {
          required: [USERS_MANAGE],
          endpoint: '/api/v1/roles/:codigo/permisos',
          method: 'PUT',
        },
      );
      expect((await t.get(`/api/v1/roles/${other}/permisos`, { token: admin })).body.permisos).toEqual([RUBROS]);
      // keeping a code it lacks is not handing it out; adding one it holds is allowed
      const res = await t.put(`/api/v1/roles/${other}/permisos`, { permisos: [RUBROS, ROLES_MANAGE] }, { token: roleManager.token });
      expect(res.status).toBe(200);
      expect((await t.put(`/api/v1/roles/${other}/permisos`, { permisos: [] }, { token: roleManager.token })).status).toBe(200);
    });

    it('cannot reactivate a role holding a permission it lacks (that would make it assignable, and its holders’ permissions, again), and can one it holds', async () => {
      const strong = await roleWith([USERS_MANAGE, RUBROS]);
      const holder = await t.createUser(strong);
      // its holder is deactivated so the role can be
      expect((await t.post(`/api/v1/users/${holder.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/roles/${strong}`, { token: admin })).status).toBe(204);

      await expectRefused(roleManager, () => t.post(`/api/v1/roles/${strong}/reactivate`, undefined, { token: roleManager.token }), {
        required: [USERS_MANAGE, RUBROS],
        endpoint: '/api/v1/roles/:codigo/reactivate',
        method: 'POST',
      });
      expect((await t.get(`/api/v1/roles/${strong}`, { token: admin })).body.activo).toBe(false);

      const own = await roleWith([ROLES_MANAGE]);
      expect((await t.request('DELETE', `/api/v1/roles/${own}`, { token: admin })).status).toBe(204);
      expect((await t.post(`/api/v1/roles/${own}/reactivate`, undefined, { token: roleManager.token })).status).toBe(200);
      expect((await t.post(`/api/v1/roles/${strong}/reactivate`, undefined, { token: admin })).status).toBe(200);
    });
  });

  describe('taking permissions away from a role acts on its holders: only on holders the caller outranks or equals', () => {
    it("a manager of users and roles cannot empty the admin role, and so cannot go on to reset the admin's password", async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE, ROLES_MANAGE]));
      const adminSet = (await t.get('/api/v1/roles/admin/permisos', { token: admin })).body.permisos as string[];
      await expectRefused(
        manager,
        () => t.put('/api/v1/roles/admin/permisos', { permisos: [USERS_MANAGE, ROLES_MANAGE] }, { token: manager.token }),
        {
          required: adminSet.filter((c) => c !== USERS_MANAGE && c !== ROLES_MANAGE).sort(),
          endpoint: '/api/v1/roles/:codigo/permisos',
          method: 'PUT',
        },
      );
      expect((await t.get('/api/v1/roles/admin/permisos', { token: admin })).body.permisos).toEqual(adminSet);
      // a stale If-Match does not hide the refusal (nor its security event)
      await expectRefused(
        manager,
        () =>
          t.request('PUT', '/api/v1/roles/admin/permisos', {
            token: manager.token,
            body: { permisos: [USERS_MANAGE, ROLES_MANAGE] },
            headers: { 'if-match': '"version-vieja"' },
          }),
        {
          required: adminSet.filter((c) => c !== USERS_MANAGE && c !== ROLES_MANAGE).sort(),
          endpoint: '/api/v1/roles/:codigo/permisos',
          method: 'PUT',
        },
      );
      expectProblem(await t.post(`/api/v1/users/${adminId}/password-reset`, undefined, { token: manager.token }), 403, 'privilegio_insuficiente');
      // the installed admin itself may still change that role's holders' sets: it holds everything
      const weaker = await roleWith([RUBROS, AUDIT_READ]);
      await t.createUser(weaker);
      expect((await t.put(`/api/v1/roles/${weaker}/permisos`, { permisos: [RUBROS] }, { token: admin })).status).toBe(200);
    });

    it('weighs every holder: a code the caller lacks, held through the role or through a grant, refuses the removal; holders it outranks do not', async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE, ROLES_MANAGE]));
      // a holder with RUBROS through the role
      const mixed = await roleWith([USERS_MANAGE, RUBROS]);
      await t.createUser(mixed);
      await expectRefused(manager, () => t.put(`/api/v1/roles/${mixed}/permisos`, { permisos: [RUBROS] }, { token: manager.token }), {
        required: [RUBROS],
        endpoint: '/api/v1/roles/:codigo/permisos',
        method: 'PUT',
      });
      expect((await t.get(`/api/v1/roles/${mixed}/permisos`, { token: admin })).body.permisos).toEqual([USERS_MANAGE, RUBROS].sort());

      // a weaker role's holders are within reach, until one of them is granted AUDIT_READ
      const weak = await roleWith([USERS_MANAGE]);
      const holder = await t.createUser(weak);
      await t.createUser(weak);
      const overrides = { granted: [AUDIT_READ], denied: [] };
      expect((await t.put(`/api/v1/users/${holder.id}/permisos/overrides`, overrides, { token: admin })).status).toBe(200);
      await expectRefused(manager, () => t.put(`/api/v1/roles/${weak}/permisos`, { permisos: [] }, { token: manager.token }), {
        required: [AUDIT_READ],
        endpoint: '/api/v1/roles/:codigo/permisos',
        method: 'PUT',
      });
      const none = { granted: [], denied: [] };
      expect((await t.put(`/api/v1/users/${holder.id}/permisos/overrides`, none, { token: admin })).status).toBe(200);
      expect((await t.put(`/api/v1/roles/${weak}/permisos`, { permisos: [] }, { token: manager.token })).status).toBe(200);
      // adding to a role with stronger holders takes nothing from them: still allowed
      expect(
        (await t.put(`/api/v1/roles/${mixed}/permisos`, { permisos: [USERS_MANAGE, RUBROS, ROLES_MANAGE] }, { token: manager.token })).status,
      ).toBe(200);
    });

    it('deactivating a role takes its permissions from its inactive holders: refused unless the caller outranks each, so it cannot be the way to reset a stronger user', async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE, ROLES_MANAGE]));
      const strong = await roleWith([USERS_MANAGE, RUBROS]);
      const holder = await t.createUser(strong);
      expect((await t.post(`/api/v1/users/${holder.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expectProblem(await t.post(`/api/v1/users/${holder.id}/password-reset`, undefined, { token: manager.token }), 403, 'privilegio_insuficiente');

      await expectRefused(manager, () => t.request('DELETE', `/api/v1/roles/${strong}`, { token: manager.token }), {
        required: [RUBROS],
        endpoint: '/api/v1/roles/:codigo',
        method: 'DELETE',
      });
      expect((await t.get(`/api/v1/roles/${strong}`, { token: admin })).body.activo).toBe(true);
      // still not the holder's to reactivate and reset
      expectProblem(await t.post(`/api/v1/users/${holder.id}/reactivate`, undefined, { token: manager.token }), 403, 'privilegio_insuficiente');

      // the 403 comes before the 409 state rules: with an active holder too, the manager is refused
      // for what the holders hold, and the administrator for the active holder
      const other = await t.createUser(strong);
      expectProblem(await t.request('DELETE', `/api/v1/roles/${strong}`, { token: manager.token }), 403, 'privilegio_insuficiente');
      expectProblem(await t.request('DELETE', `/api/v1/roles/${strong}`, { token: admin }), 409, 'rol_en_uso');
      expect((await t.post(`/api/v1/users/${other.id}/deactivate`, undefined, { token: admin })).status).toBe(200);

      // a role whose holders it outranks, and one without holders, it deactivates
      const weak = await roleWith([USERS_MANAGE]);
      const weakHolder = await t.createUser(weak);
      expect((await t.post(`/api/v1/users/${weakHolder.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.request('DELETE', `/api/v1/roles/${weak}`, { token: manager.token })).status).toBe(204);
      expect((await t.request('DELETE', `/api/v1/roles/${await roleWith([RUBROS])}`, { token: manager.token })).status).toBe(204);
      // the administrator may: it holds everything
      expect((await t.request('DELETE', `/api/v1/roles/${strong}`, { token: admin })).status).toBe(204);
    });
  });

  describe('the self-rules bind the installed admin too; the subset rules never refuse it', () => {
    it('refuses the admin a PUT of its own overrides, even one that changes nothing', async () => {
      await expectRefused(
        { id: adminId },
        () => t.put(`/api/v1/users/${adminId}/permisos/overrides`, { granted: [], denied: [] }, { token: admin }),
        {
          required: [],
          endpoint: '/api/v1/users/:id/permisos/overrides',
          method: 'PUT',
        },
      );
    });

    it("refuses the admin a change of its own role's permission set", async () => {
      const before = (await t.get('/api/v1/roles/admin/permisos', { token: admin })).body.permisos as string[];
      await expectRefused({ id: adminId }, () => t.put('/api/v1/roles/admin/permisos', { permisos: before }, { token: admin }), {
        required: [],
        endpoint: '/api/v1/roles/:codigo/permisos',
        method: 'PUT',
      });
    });

    it('refuses everyone the administrators’ reset of their own password (they use PUT /users/me/password)', async () => {
      await expectRefused({ id: adminId }, () => t.post(`/api/v1/users/${adminId}/password-reset`, undefined, { token: admin }), {
        required: [],
        endpoint: '/api/v1/users/:id/password-reset',
        method: 'POST',
      });
      await expectRefused(userManager, () => t.post(`/api/v1/users/${userManager.id}/password-reset`, undefined, { token: userManager.token }), {
        required: [],
        endpoint: '/api/v1/users/:id/password-reset',
        method: 'POST',
      });
      expect((await t.post('/api/v1/auth/login', { username: userManager.username, password: userManager.password })).status).toBe(200);
    });

    it('lets the admin create users of any role and change any other user', async () => {
      const created = await t.post('/api/v1/users', newUserBody('admin'), { token: admin });
      expect(created.status).toBe(201);
      expect((await t.post(`/api/v1/users/${created.body.id}/password-reset`, undefined, { token: admin })).status).toBe(200);
      expect((await t.put(`/api/v1/users/${created.body.id}/permisos/overrides`, { granted: [], denied: [RUBROS] }, { token: admin })).status).toBe(
        200,
      );
      expect((await t.post(`/api/v1/users/${created.body.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
    });
  });

  describe('order of checks: 401, 403 permiso_denegado, 400, 404, 403 privilegio_insuficiente, 409', () => {
    it('answers 400 for an unknown code before refusing the caller its own overrides', async () => {
      expectProblem(
        await t.put(`/api/v1/users/${userManager.id}/permisos/overrides`, { granted: ['no:existe'], denied: [] }, { token: userManager.token }),
        400,
        'validacion',
      );
      expectProblem(await t.post('/api/v1/users', newUserBody('no_such_role'), { token: userManager.token }), 400, 'validacion');
    });

    it('answers 404 for a missing user before the delegation rule', async () => {
      expectProblem(await t.post('/api/v1/users/999999/password-reset', undefined, { token: userManager.token }), 404, 'no_encontrado');
      expectProblem(
        await t.put('/api/v1/roles/no_such_role/permisos', { permisos: [USERS_MANAGE] }, { token: roleManager.token }),
        404,
        'no_encontrado',
      );
    });

    it('answers 403 privilegio_insuficiente before 409 duplicado', async () => {
      const body = { ...newUserBody('admin'), username: ADMIN_USERNAME };
      expectProblem(await t.post('/api/v1/users', body, { token: userManager.token }), 403, 'privilegio_insuficiente');
      expectProblem(await t.post('/api/v1/users', { ...body, rol: 'consulta' }, { token: userManager.token }), 409, 'duplicado');
    });

    it("keeps self-deactivation and changing one's own role 409 anti_lockout, even toward a stronger role", async () => {
      expectProblem(await t.post(`/api/v1/users/${userManager.id}/deactivate`, undefined, { token: userManager.token }), 409, 'anti_lockout');
      const fields = { nombre: 'Test', apellido: 'x', email: `${userManager.username}@example.test` };
      expectProblem(await t.put(`/api/v1/users/${userManager.id}`, { ...fields, rol: 'admin' }, { token: userManager.token }), 409, 'anti_lockout');
    });

    it('answers 400, 403 privilegio_insuficiente and 409 anti_lockout before 412: a stale If-Match hides no refusal', async () => {
      const stale = { 'if-match': '"version-vieja"' };
      const fields = { nombre: 'Ana', apellido: 'Paz', email: 'ana@example.test' };
      await expectRefused(
        userManager,
        () => t.request('PUT', `/api/v1/users/${adminId}`, { token: userManager.token, body: { ...fields, rol: 'admin' }, headers: stale }),
        { required: expect.any(Array) as unknown as string[], endpoint: '/api/v1/users/:id', method: 'PUT' },
      );
      expectProblem(
        await t.request('POST', `/api/v1/users/${userManager.id}/deactivate`, { token: userManager.token, headers: stale }),
        409,
        'anti_lockout',
      );
      expectProblem(
        await t.request('PUT', `/api/v1/users/${adminId}`, {
          token: admin,
          body: { ...fields, rol: 'admin', email: 'no-es-un-email' },
          headers: stale,
        }),
        400,
        'validacion',
      );
      // with nothing else wrong, the stale tag is the answer
      const weaker = await t.createUser('consulta');
      expectProblem(
        await t.request('PUT', `/api/v1/users/${weaker.id}`, { token: userManager.token, body: { ...fields, rol: 'consulta' }, headers: stale }),
        412,
        'version_obsoleta',
      );
    });

    it('answers 403 permiso_denegado, not privilegio_insuficiente, to a caller without the route permission', async () => {
      expectProblem(await t.post(`/api/v1/users/${adminId}/password-reset`, undefined, { token: roleManager.token }), 403, 'permiso_denegado');
    });
  });

  /**
   * A user's creation and a password reset wait for a password hash between the guard and their
   * write (seconds, when the hashing queue is long). Staged here by holding the row the write's
   * transaction locks first (the target user, the role to assign) while the caller is deactivated,
   * signed out or stripped of the permission; then the write checks its caller again.
   */
  describe('an operation that waited checks its caller again before it writes', () => {
    const falseSql = () => (t.engine === 'mssql' ? '0' : 'false');
    const passwordHashOf = async (id: number) => (await t.query('SELECT password_hash FROM users WHERE id = $1', [id]))[0].password_hash as string;

    it('a password reset whose caller was deactivated meanwhile is 401: no temporary password, nothing written', async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE]));
      const target = await t.createUser('cajero');
      const [hash, events] = [await passwordHashOf(target.id), await auditCount()];
      const res = await raceWithHeldRows(t.db, t.engine, {
        what: 'the password reset',
        hold: (sql) => sql(lockRowSql(t.engine, 'users'), [target.id]),
        request: () => t.post(`/api/v1/users/${target.id}/password-reset`, undefined, { token: manager.token }),
        meanwhile: (sql) => sql(`UPDATE users SET activo = ${falseSql()} WHERE id = $1`, [manager.id]),
      });
      expectProblem(res, 401, 'no_autenticado');
      expect(res.body).not.toHaveProperty('temporaryPassword');
      expect(await passwordHashOf(target.id)).toBe(hash);
      expect(await auditCount()).toBe(events);
    });

    it('a password reset whose caller signed out meanwhile is 401', async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE]));
      const target = await t.createUser('cajero');
      const hash = await passwordHashOf(target.id);
      const sid = decodeJwt(manager.token).payload.sid as string;
      const res = await raceWithHeldRows(t.db, t.engine, {
        what: 'the password reset',
        hold: (sql) => sql(lockRowSql(t.engine, 'users'), [target.id]),
        request: () => t.post(`/api/v1/users/${target.id}/password-reset`, undefined, { token: manager.token }),
        meanwhile: (sql) => sql('UPDATE sessions SET ended_at = $1, ended_reason = $2 WHERE id = $3', [new Date(), 'logout', sid]),
      });
      expectProblem(res, 401, 'no_autenticado');
      expect(await passwordHashOf(target.id)).toBe(hash);
    });

    it("a user's creation whose caller lost the permission meanwhile is 403 permiso_denegado: no user, no audit event, the security event", async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE]));
      const role = await roleWith([]);
      const roleId = Number((await t.query('SELECT id FROM roles WHERE codigo = $1', [role]))[0].id);
      const body = newUserBody(role);
      const events = await auditCount();
      const denied = JSON.stringify({ granted: [], denied: [USERS_MANAGE] });
      const res = await raceWithHeldRows(t.db, t.engine, {
        what: "the user's creation",
        hold: (sql) => sql(lockRowSql(t.engine, 'roles'), [roleId]),
        request: () => t.post('/api/v1/users', body, { token: manager.token }),
        meanwhile: (sql) => sql('UPDATE users SET permission_overrides = $1 WHERE id = $2', [denied, manager.id]),
      });
      expectProblem(res, 403, 'permiso_denegado');
      expect(await t.query('SELECT id FROM users WHERE username = $1', [body.username])).toEqual([]);
      expect(await auditCount()).toBe(events);
      const denial = await lastDenial();
      expect(denial).toMatchObject({ action: 'permission.denied', result: 'failure', actor_user_id: manager.id });
      expect(denial.metadata).toEqual({ permission: USERS_MANAGE, endpoint: '/api/v1/users', method: 'POST' });
    });

    it('a caller still admitted writes as before', async () => {
      const manager = await t.createUser(await roleWith([USERS_MANAGE]));
      const target = await t.createUser('cajero');
      const res = await raceWithHeldRows(t.db, t.engine, {
        what: 'the password reset',
        hold: (sql) => sql(lockRowSql(t.engine, 'users'), [target.id]),
        request: () => t.post(`/api/v1/users/${target.id}/password-reset`, undefined, { token: manager.token }),
      });
      expect(res.status).toBe(200);
      expect(res.body.temporaryPassword).toEqual(expect.any(String));
    });
  });
});
