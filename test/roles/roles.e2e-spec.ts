import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { installedCatalog, REGISTERED_PERMISSION_CODES } from '../support/installed-catalog.js';
import { expectProblem, TestApp } from '../support/test-app.js';

const CANONICAL = ['admin', 'auditor', 'cajero', 'consulta', 'contable', 'diagramador', 'supervisor', 'vendedor'];

const READ = 'administracion:roles:ver';

describe('roles and permissions', () => {
  let t: TestApp, admin: string, adminId: number;
  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const code = (prefix = 'rol') => `${prefix}_${randomBytes(4).toString('hex')}`;
  const createRole = async (codigo = code(), extra: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v1/roles', { codigo, nombre: `Rol ${codigo}`, descripcion: 'Un rol de prueba', ...extra }, { token: admin });
    if (res.status !== 201) throw new Error(res.text);
    return codigo;
  };
  const createUserWithRole = async (rol: string) => {
    const username = `r_${randomBytes(4).toString('hex')}`;
    const res = await t.post(
      '/api/v1/users',
      { username, password: 'Clave-segura-1', nombre: 'Rita', apellido: 'Rol', email: `${username}@example.test`, rol },
      { token: admin },
    );
    if (res.status !== 201) throw new Error(res.text);
    return res.body as { id: number };
  };

  describe('roles', () => {
    it('lists the active roles ordered by codigo, and the inactive ones only with incluirInactivos', async () => {
      const inactive = await createRole();
      await t.delete(`/api/v1/roles/${inactive}`, { token: admin });
      const active = await t.get('/api/v1/roles', { token: admin });
      expect(active.status).toBe(200);
      const codes = active.body.map((r: any) => r.codigo);
      expect(codes).toEqual([...codes].sort());
      expect(codes).toEqual(expect.arrayContaining(CANONICAL));
      expect(codes).not.toContain(inactive);
      expect(active.body.find((r: any) => r.codigo === 'admin')).toEqual({
        codigo: 'admin',
        nombre: 'Administrador',
        descripcion: expect.any(String),
        activo: true,
      });
      const all = await t.get('/api/v1/roles', { token: admin, query: { incluirInactivos: true } });
      expect(all.body).toContainEqual(expect.objectContaining({ codigo: inactive, activo: false }));
    });

    it('creates a role: 201, Location, RolDto, audited rol.create with codigo as targetId', async () => {
      const codigo = code();
      const res = await t.post('/api/v1/roles', { codigo, nombre: 'Cobranzas', descripcion: 'Gestión de cobranzas' }, { token: admin });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/api/v1/roles/${codigo}`);
      expect(res.body).toEqual({ codigo, nombre: 'Cobranzas', descripcion: 'Gestión de cobranzas', activo: true });
      expect((await t.get(`/api/v1/roles/${codigo}`, { token: admin })).body).toEqual(res.body);
      expect((await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).body).toEqual({ codigo, permisos: [] });
      const [event] = await t.auditEvents({ action: 'rol.create', targetId: codigo });
      expect(event).toMatchObject({ target_type: 'rol', actor_user_id: adminId });
      expect(event.metadata).toEqual({ after: { codigo, nombre: 'Cobranzas', descripcion: 'Gestión de cobranzas' } });
    });

    it('rejects a codigo outside ^[a-z][a-z0-9_]*$ with 400', async () => {
      for (const codigo of ['Mayus', '1abc', '_abc', 'con-guion', 'con espacio', '', 'x'.repeat(51)]) {
        expectProblem(await t.post('/api/v1/roles', { codigo, nombre: 'X' }, { token: admin }), 400, 'validacion');
      }
    });

    it('rejects an existing codigo with 409 duplicado, also when that role is inactive', async () => {
      expectProblem(await t.post('/api/v1/roles', { codigo: 'cajero', nombre: 'Otro' }, { token: admin }), 409, 'duplicado');
      const inactive = await createRole();
      await t.delete(`/api/v1/roles/${inactive}`, { token: admin });
      expectProblem(await t.post('/api/v1/roles', { codigo: inactive, nombre: 'Otro' }, { token: admin }), 409, 'duplicado');
    });

    it('answers one 201 and nineteen 409 to 20 concurrent creates of one codigo', async () => {
      const codigo = code();
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post('/api/v1/roles', { codigo, nombre: 'Carrera' }, { token: admin })));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 && r.body.code === 'duplicado')).toHaveLength(19);
    });

    it('checks the {codigo} path against the pattern first (400) and answers 404 for a missing role', async () => {
      for (const [method, url] of [
        ['GET', '/api/v1/roles/Admin'],
        ['GET', '/api/v1/roles/Admin/permisos'],
        ['PUT', '/api/v1/roles/no-valido'],
        ['DELETE', '/api/v1/roles/1x'],
        ['POST', '/api/v1/roles/MAL/reactivate'],
        ['PUT', '/api/v1/roles/MAL/permisos'],
      ] as const) {
        const res = await t.request(method, url, { token: admin, body: method === 'PUT' ? {} : undefined });
        expect([method, url, res.status, res.body.code]).toEqual([method, url, 400, 'validacion']);
      }
      expectProblem(await t.get('/api/v1/roles/no_existe', { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get('/api/v1/roles/no_existe/permisos', { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.put('/api/v1/roles/no_existe', { nombre: 'X' }, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.delete('/api/v1/roles/no_existe', { token: admin }), 404, 'no_encontrado');
    });

    it('updates nombre and descripcion, audited rol.update with before and after', async () => {
      const codigo = await createRole();
      const res = await t.put(`/api/v1/roles/${codigo}`, { nombre: 'Renombrado', descripcion: 'Nueva' }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ codigo, nombre: 'Renombrado', descripcion: 'Nueva', activo: true });
      const [event] = await t.auditEvents({ action: 'rol.update', targetId: codigo });
      expect(event).toMatchObject({ target_type: 'rol', actor_user_id: adminId });
      expect(event.metadata).toEqual({
        before: { nombre: `Rol ${codigo}`, descripcion: 'Un rol de prueba' },
        after: { nombre: 'Renombrado', descripcion: 'Nueva' },
      });
    });

    it('rejects a codigo in an update body with 400 campo_inmutable', async () => {
      const codigo = await createRole();
      expectProblem(await t.put(`/api/v1/roles/${codigo}`, { nombre: 'X', codigo }, { token: admin }), 400, 'campo_inmutable');
    });

    it('refuses to delete a role an active user holds (409 rol_en_uso), then deletes it once the users left it', async () => {
      const codigo = await createRole();
      const holder = await createUserWithRole(codigo);
      const other = await createUserWithRole(codigo);
      expectProblem(await t.delete(`/api/v1/roles/${codigo}`, { token: admin }), 409, 'rol_en_uso');
      await t.put(`/api/v1/users/${holder.id}`, { nombre: 'Rita', apellido: 'Rol', email: 'rita@example.test', rol: 'consulta' }, { token: admin });
      expectProblem(await t.delete(`/api/v1/roles/${codigo}`, { token: admin }), 409, 'rol_en_uso');
      await t.post(`/api/v1/users/${other.id}/deactivate`, undefined, { token: admin });

      const res = await t.delete(`/api/v1/roles/${codigo}`, { token: admin });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await t.get(`/api/v1/roles/${codigo}`, { token: admin })).body.activo).toBe(false);
      const [event] = await t.auditEvents({ action: 'rol.deactivate', targetId: codigo });
      expect(event).toMatchObject({ target_type: 'rol', actor_user_id: adminId, metadata: { before: { activo: true }, after: { activo: false } } });
      expect((await t.delete(`/api/v1/roles/${codigo}`, { token: admin })).status).toBe(204);
      expect(await t.auditEvents({ action: 'rol.deactivate', targetId: codigo })).toHaveLength(1);
    });

    it('reactivates a role, audited rol.reactivate, idempotent', async () => {
      const codigo = await createRole();
      await t.delete(`/api/v1/roles/${codigo}`, { token: admin });
      const res = await t.post(`/api/v1/roles/${codigo}/reactivate`, undefined, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ codigo, activo: true });
      expect((await t.post(`/api/v1/roles/${codigo}/reactivate`, undefined, { token: admin })).status).toBe(200);
      const events = await t.auditEvents({ action: 'rol.reactivate', targetId: codigo });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        target_type: 'rol',
        actor_user_id: adminId,
        metadata: { before: { activo: false }, after: { activo: true } },
      });
      expect((await createUserWithRole(codigo)).id).toBeGreaterThan(0);
    });
  });

  describe('role permissions', () => {
    it("answers a role's permissions sorted", async () => {
      const res = await t.get('/api/v1/roles/auditor/permisos', { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        codigo: 'auditor',
        permisos: ['administracion:auditoria:ver', 'administracion:roles:ver', 'administracion:usuarios:ver'],
      });
    });

    it('replaces the set and audits rol.permisos_update with sorted before and after', async () => {
      const codigo = await createRole();
      await t.put(
        `/api/v1/roles/${codigo}/permisos`,
        { permisos: ['catalogo:rubros:gestionar', 'administracion:medios:gestionar'] },
        { token: admin },
      );
      const res = await t.put(
        `/api/v1/roles/${codigo}/permisos`,
        {
          permisos: ['catalogo:tipos_producto:gestionar', 'administracion:usuarios:ver', 'catalogo:rubros:gestionar', 'administracion:usuarios:ver'],
        },
        { token: admin },
      );
      expect(res.status).toBe(200);
      const after = ['administracion:usuarios:ver', 'catalogo:rubros:gestionar', 'catalogo:tipos_producto:gestionar'];
      expect(res.body).toEqual({ codigo, permisos: after });
      expect((await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).body.permisos).toEqual(after);
      const [event] = await t.auditEvents({ action: 'rol.permisos_update', targetId: codigo });
      expect(event).toMatchObject({ target_type: 'rol', actor_user_id: adminId });
      expect(event.metadata).toEqual({ before: ['administracion:medios:gestionar', 'catalogo:rubros:gestionar'], after });
    });

    it('rejects an unknown code with 400 naming it, and changes nothing', async () => {
      const codigo = await createRole();
      const res = await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['catalogo:rubros:gestionar', 'no:existe'] }, { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'permisos[1]' })]);
      expect((await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).body.permisos).toEqual([]);
    });

    it('applies a replacement to the very next request of every holder', async () => {
      const codigo = await createRole();
      const holder = await t.createUser(codigo);
      expectProblem(await t.get('/api/v1/users', { token: holder.token }), 403, 'permiso_denegado');
      await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['administracion:usuarios:ver'] }, { token: admin });
      expect((await t.get('/api/v1/users', { token: holder.token })).status).toBe(200);
    });

    it('answers the permissions a role had at an instant (asOf), and 404 before the role existed', async () => {
      const early = new Date(Date.now() - 60_000).toISOString();
      const codigo = await createRole();
      await t.put(
        `/api/v1/roles/${codigo}/permisos`,
        { permisos: ['catalogo:rubros:gestionar', 'administracion:medios:gestionar'] },
        { token: admin },
      );
      const before = new Date().toISOString();
      await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['catalogo:productos:gestionar', 'catalogo:rubros:gestionar'] }, { token: admin });

      const then = await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin, query: { asOf: before } });
      expect(then.status).toBe(200);
      expect(then.body).toEqual({ codigo, permisos: ['administracion:medios:gestionar', 'catalogo:rubros:gestionar'] });
      expect((await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).body.permisos).toEqual([
        'catalogo:productos:gestionar',
        'catalogo:rubros:gestionar',
      ]);
      expectProblem(await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin, query: { asOf: early } }), 404, 'no_encontrado');
    });

    it('answers 400 for a future or unparsable asOf', async () => {
      for (const asOf of [new Date(Date.now() + 3_600_000).toISOString(), 'mañana', '2025-03-01']) {
        expectProblem(await t.get('/api/v1/roles/admin/permisos', { token: admin, query: { asOf } }), 400, 'validacion');
      }
    });

    it('needs administracion:auditoria:ver for asOf in addition (403 and a permission.denied event)', async () => {
      const manager = await t.createUser('consulta', { overrides: { granted: ['administracion:roles:ver'], denied: [] } });
      expect((await t.get('/api/v1/roles/admin/permisos', { token: manager.token })).status).toBe(200);
      expectProblem(
        await t.get('/api/v1/roles/admin/permisos', { token: manager.token, query: { asOf: new Date().toISOString() } }),
        403,
        'permiso_denegado',
      );
      const [event] = (await t.securityEvents('permission.denied')).filter((e) => e.actor_user_id === manager.id);
      expect(event.metadata).toEqual({ permission: 'administracion:auditoria:ver', endpoint: '/api/v1/roles/:codigo/permisos', method: 'GET' });
    });
  });

  describe('permission catalog', () => {
    it('answers the catalog [{codigo, descripcion}] sorted by codigo', async () => {
      const res = await t.get('/api/v1/permisos', { token: admin });
      expect(res.status).toBe(200);
      const expected = (await installedCatalog()).permissions.sort((a, b) => (a.codigo < b.codigo ? -1 : 1));
      expect(res.body).toEqual(expected);
    });

    it('holds exactly the codes of the permission registry the routes require', async () => {
      const res = await t.get('/api/v1/permisos', { token: admin });
      expect(res.body.map((p: { codigo: string }) => p.codigo)).toEqual(REGISTERED_PERMISSION_CODES);
    });

    it('is the PermissionCode enum of the OpenAPI document, which types every permission list of the typed client', async () => {
      const catalog = (await t.get('/api/v1/permisos', { token: admin })).body.map((p: { codigo: string }) => p.codigo);
      const document = (await t.get('/docs/openapi.json')).body;
      expect([...document.components.schemas.PermissionCode.enum].sort()).toEqual(catalog);
    });
  });

  describe('access', () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/roles'],
      ['GET', '/api/v1/roles/cajero'],
      ['POST', '/api/v1/roles', { codigo: 'sin_permiso', nombre: 'X' }],
      ['PUT', '/api/v1/roles/cajero', { nombre: 'X' }],
      ['DELETE', '/api/v1/roles/cajero'],
      ['POST', '/api/v1/roles/cajero/reactivate'],
      ['GET', '/api/v1/roles/cajero/permisos'],
      ['PUT', '/api/v1/roles/cajero/permisos', { permisos: [] }],
      ['GET', '/api/v1/permisos'],
    ];

    const reads = routes.filter(([method]) => method === 'GET');
    const writes = routes.filter(([method]) => method !== 'GET');

    it('lets a supervisor and an auditor read roles and the catalog (roles:ver) but refuses their writes (403)', async () => {
      for (const rol of ['supervisor', 'auditor']) {
        const caller = await t.createUser(rol);
        for (const [method, url] of reads) {
          const res = await t.request(method as 'GET', url, { token: caller.token });
          expect([rol, method, url, res.status]).toEqual([rol, method, url, 200]);
        }
        for (const [method, url, payload] of writes) {
          const res = await t.request(method as 'GET', url, { token: caller.token, body: payload });
          expect([rol, method, url, res.status, res.body.code]).toEqual([rol, method, url, 403, 'permiso_denegado']);
        }
      }
      expect(await t.query("SELECT 1 FROM roles WHERE codigo = 'sin_permiso'")).toHaveLength(0);
    });

    it('refuses the reads (403) to a supervisor whose roles:ver is denied by an override', async () => {
      const caller = await t.createUser('supervisor', { overrides: { granted: [], denied: [READ] } });
      for (const [method, url] of reads) {
        const res = await t.request(method as 'GET', url, { token: caller.token });
        expect([method, url, res.status, res.body.code]).toEqual([method, url, 403, 'permiso_denegado']);
      }
    });

    it('installs roles:ver for admin, supervisor and auditor only', async () => {
      const holders: Array<{ codigo: string }> = await t.query(
        `SELECT r.codigo FROM roles r JOIN role_permissions rp ON rp.role_id = r.id JOIN permissions p ON p.id = rp.permission_id
         WHERE p.codigo = 'administracion:roles:ver' ORDER BY r.codigo`,
      );
      expect(holders.map((h) => h.codigo)).toEqual(['admin', 'auditor', 'supervisor']);
    });
  });
});
