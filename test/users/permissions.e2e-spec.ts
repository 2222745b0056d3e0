import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ADMIN_USERNAME, expectProblem, TestApp } from '../support/test-app.js';
import { onlyOn } from '../support/test-database.js';

const SUPERVISOR = [
  'administracion:medios:gestionar',
  'administracion:puntos_de_venta:gestionar',
  'administracion:roles:ver',
  'administracion:usuarios:ver',
  'catalogo:productos:gestionar',
  'catalogo:rubros:gestionar',
  'catalogo:tipos_producto:gestionar',
];

describe('user permissions', () => {
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

  const createViaApi = async (rol: string) => {
    const username = `perm_${randomBytes(4).toString('hex')}`;
    const res = await t.post(
      '/api/v1/users',
      { username, password: 'Clave-segura-1', nombre: 'Pat', apellido: 'Ruiz', email: `${username}@example.test`, rol },
      { token: admin },
    );
    if (res.status !== 201) throw new Error(res.text);
    return res.body as { id: number; username: string };
  };
  const overrides = (id: number, granted: string[], denied: string[]) =>
    t.put(`/api/v1/users/${id}/permisos/overrides`, { granted, denied }, { token: admin });

  describe('view and overrides', () => {
    it('shows role permissions, overrides and the effective set, sorted', async () => {
      const user = await createViaApi('supervisor');
      const res = await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        userId: user.id,
        username: user.username,
        rol: 'supervisor',
        rolPermisos: SUPERVISOR,
        granted: [],
        denied: [],
        efectivos: SUPERVISOR,
      });
    });

    it('replaces the overrides, stores one sorted JSON document and answers the new view', async () => {
      const user = await createViaApi('supervisor');
      const res = await overrides(
        user.id,
        ['administracion:fiscal:gestionar', 'administracion:auditoria:ver', 'administracion:fiscal:gestionar'],
        ['catalogo:rubros:gestionar'],
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        granted: ['administracion:auditoria:ver', 'administracion:fiscal:gestionar'],
        denied: ['catalogo:rubros:gestionar'],
        rolPermisos: SUPERVISOR,
      });
      expect(res.body.efectivos).toEqual(
        [...SUPERVISOR.filter((c) => c !== 'catalogo:rubros:gestionar'), 'administracion:auditoria:ver', 'administracion:fiscal:gestionar'].sort(),
      );
      const [row] = await t.query('SELECT permission_overrides FROM users WHERE id = $1', [user.id]);
      expect(JSON.parse(row.permission_overrides)).toEqual({
        granted: ['administracion:auditoria:ver', 'administracion:fiscal:gestionar'],
        denied: ['catalogo:rubros:gestionar'],
      });
      expect((await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin })).body).toEqual(res.body);
    });

    it('audits usuario.permisos_update with before and after of both lists', async () => {
      const user = await createViaApi('cajero');
      await overrides(user.id, ['catalogo:rubros:gestionar'], []);
      await overrides(user.id, ['administracion:medios:gestionar'], ['catalogo:rubros:gestionar']);
      const [event] = await t.auditEvents({ action: 'usuario.permisos_update', targetId: String(user.id) });
      expect(event).toMatchObject({ target_type: 'usuario', actor_user_id: adminId });
      expect(event.metadata).toEqual({
        before: { granted: ['catalogo:rubros:gestionar'], denied: [] },
        after: { granted: ['administracion:medios:gestionar'], denied: ['catalogo:rubros:gestionar'] },
      });
    });

    it('rejects an unknown code with 400 naming it, and changes nothing', async () => {
      const user = await createViaApi('cajero');
      const res = await overrides(user.id, ['catalogo:rubros:gestionar', 'no:existe'], []);
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'granted[1]' })]);
      expect((await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin })).body.granted).toEqual([]);
    });

    it('rejects a code in both lists with 400', async () => {
      const user = await createViaApi('cajero');
      expectProblem(await overrides(user.id, ['catalogo:rubros:gestionar'], ['catalogo:rubros:gestionar']), 400, 'validacion');
    });

    it('rejects a body without both lists, or with non-string items, with 400', async () => {
      const user = await createViaApi('cajero');
      const missing = await t.put(`/api/v1/users/${user.id}/permisos/overrides`, { granted: [] }, { token: admin });
      expectProblem(missing, 400, 'validacion');
      // a missing list breaks the list rule alone; a wrong item is named by its path
      expect(missing.body.errors).toEqual([{ field: 'denied', code: 'isArray', message: 'denied debe ser una lista' }]);
      const wrongItem = await t.put(
        `/api/v1/users/${user.id}/permisos/overrides`,
        { granted: [], denied: ['catalogo:rubros:gestionar', true] },
        { token: admin },
      );
      expectProblem(wrongItem, 400, 'validacion');
      expect(wrongItem.body.errors).toEqual([{ field: 'denied[1]', code: 'isString', message: 'denied[1] debe ser un texto' }]);
    });

    it('answers 404 for a missing user', async () => {
      expectProblem(await t.get('/api/v1/users/999999/permisos', { token: admin }), 404, 'no_encontrado');
      expectProblem(await overrides(999999, [], []), 404, 'no_encontrado');
    });
  });

  describe('precedence and effect', () => {
    it('applies a deny over the role on the very next request with the same access token', async () => {
      const supervisor = await t.createUser('supervisor');
      expect((await t.get('/api/v1/users', { token: supervisor.token })).status).toBe(200);
      await overrides(supervisor.id, [], ['administracion:usuarios:ver']);
      expectProblem(await t.get('/api/v1/users', { token: supervisor.token }), 403, 'permiso_denegado');
    });

    it('applies a grant on top of the role on the very next request', async () => {
      const cajero = await t.createUser('cajero');
      expectProblem(await t.get('/api/v1/users', { token: cajero.token }), 403, 'permiso_denegado');
      await overrides(cajero.id, ['administracion:usuarios:ver'], []);
      expect((await t.get('/api/v1/users', { token: cajero.token })).status).toBe(200);
    });

    it('lets a deny win over a grant of the same code stored in the document', async () => {
      // The API refuses a code in both lists; a document written by another tool may still hold one.
      const user = await t.createUser('cajero', {
        overrides: { granted: ['administracion:usuarios:ver', 'catalogo:rubros:gestionar'], denied: ['administracion:usuarios:ver'] },
      });
      const view = await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin });
      expect(view.body.efectivos).toEqual(['catalogo:rubros:gestionar']);
      expectProblem(await t.get('/api/v1/users', { token: user.token }), 403, 'permiso_denegado');
    });

    it('gives nothing for an inactive role, while overrides still apply', async () => {
      const codigo = `tmp_${randomBytes(3).toString('hex')}`;
      await t.post('/api/v1/roles', { codigo, nombre: 'Temporal' }, { token: admin });
      await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['administracion:usuarios:ver', 'catalogo:rubros:gestionar'] }, { token: admin });
      const user = await createViaApi(codigo);
      await overrides(user.id, ['administracion:medios:gestionar'], []);
      await t.post(`/api/v1/users/${user.id}/deactivate`, undefined, { token: admin });
      expect((await t.delete(`/api/v1/roles/${codigo}`, { token: admin })).status).toBe(204);
      const view = await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin });
      expect(view.body).toMatchObject({ rol: codigo, rolPermisos: [], efectivos: ['administracion:medios:gestionar'] });
    });
  });

  describe('point in time (asOf)', () => {
    it('answers the user and its permission view as they were before a role change', async () => {
      const user = await createViaApi('cajero');
      await overrides(user.id, ['catalogo:rubros:gestionar'], []);
      const before = new Date().toISOString();
      const changed = await t.put(
        `/api/v1/users/${user.id}`,
        { nombre: 'Nuevo', apellido: 'Ruiz', email: 'nuevo@example.test', rol: 'supervisor' },
        { token: admin },
      );
      expect(changed.status).toBe(200);
      await overrides(user.id, [], []);

      const then = await t.get(`/api/v1/users/${user.id}`, { token: admin, query: { asOf: before } });
      expect(then.status).toBe(200);
      expect(then.body).toMatchObject({ id: user.id, username: user.username, nombre: 'Pat', rol: 'cajero', activo: true });
      const now = await t.get(`/api/v1/users/${user.id}`, { token: admin });
      expect(now.body).toMatchObject({ nombre: 'Nuevo', rol: 'supervisor' });
      expect(Object.keys(then.body).sort()).toEqual(Object.keys(now.body).sort());

      const view = await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin, query: { asOf: before } });
      expect(view.status).toBe(200);
      expect(view.body).toEqual({
        userId: user.id,
        username: user.username,
        rol: 'cajero',
        rolPermisos: [],
        granted: ['catalogo:rubros:gestionar'],
        denied: [],
        efectivos: ['catalogo:rubros:gestionar'],
      });
      expect((await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin })).body).toMatchObject({
        rol: 'supervisor',
        granted: [],
        efectivos: SUPERVISOR,
      });
    });

    it('reads at the periods own precision: an instant a microsecond after a change shows it, one before does not', async () => {
      const user = await createViaApi('cajero');
      expect(
        (
          await t.put(
            `/api/v1/users/${user.id}`,
            { nombre: 'Preciso', apellido: 'Ruiz', email: 'preciso@example.test', rol: 'cajero' },
            { token: admin },
          )
        ).status,
      ).toBe(200);
      // when the current version began, to the microsecond
      const [{ start }] = await t.query(
        t.engine === 'mssql'
          ? 'SELECT CONVERT(varchar(27), valid_from, 126) AS start FROM users WHERE id = @0'
          : `SELECT to_char(lower(sys_period) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS start FROM users WHERE id = $1`,
        [user.id],
      );
      const micros = BigInt(Date.parse(`${String(start).slice(0, 19)}Z`)) * 1000n + BigInt(String(start).slice(20, 26).padEnd(6, '0'));
      const at = (us: bigint) => `${new Date(Number(us / 1000n)).toISOString().slice(0, 19)}.${String(us % 1_000_000n).padStart(6, '0')}Z`;
      const nombreAt = async (us: bigint) => (await t.get(`/api/v1/users/${user.id}`, { token: admin, query: { asOf: at(us) } })).body.nombre;
      expect(await nombreAt(micros)).toBe('Preciso');
      expect(await nombreAt(micros - 1n)).toBe('Pat');
    });

    onlyOn('postgres', "SQL Server refuses the earlier transaction's update instead (13535), answered 503")(
      'keeps a version that a transaction started later committed while an earlier one had not yet written the row',
      async () => {
        const user = await createViaApi('cajero');
        const early = t.db.createQueryRunner();
        const late = t.db.createQueryRunner();
        await early.connect();
        await late.connect();
        try {
          // the early transaction's time (now()) is fixed by its first statement
          await early.startTransaction();
          await early.query('SELECT now()');
          await new Promise((resolve) => setTimeout(resolve, 5));
          await late.startTransaction();
          await late.query(`UPDATE users SET nombre = 'Tarde' WHERE id = $1`, [user.id]);
          await late.commitTransaction();
          await early.query(`UPDATE users SET nombre = 'Temprano' WHERE id = $1`, [user.id]);
          await early.commitTransaction();
        } finally {
          await early.release();
          await late.release();
        }
        const history = await t.query(`SELECT nombre FROM users_history WHERE id = $1 ORDER BY lower(sys_period)`, [user.id]);
        // the first version and the later transaction's, which the earlier one replaced
        expect(history.map((r) => r.nombre)).toEqual(['Pat', 'Tarde']);
        expect((await t.get(`/api/v1/users/${user.id}`, { token: admin })).body.nombre).toBe('Temprano');
      },
    );

    it('answers 404 for an instant before the user existed', async () => {
      const before = new Date(Date.now() - 60_000).toISOString();
      const user = await createViaApi('cajero');
      expectProblem(await t.get(`/api/v1/users/${user.id}`, { token: admin, query: { asOf: before } }), 404, 'no_encontrado');
      expectProblem(await t.get(`/api/v1/users/${user.id}/permisos`, { token: admin, query: { asOf: before } }), 404, 'no_encontrado');
    });

    it('answers 400 for a future or unparsable instant', async () => {
      const future = new Date(Date.now() + 3_600_000).toISOString();
      for (const asOf of [future, 'ayer', '2025-02-30T00:00:00Z', '2025-03-01T10:00:00', '']) {
        expectProblem(await t.get(`/api/v1/users/${adminId}`, { token: admin, query: { asOf } }), 400, 'validacion');
        expectProblem(await t.get(`/api/v1/users/${adminId}/permisos`, { token: admin, query: { asOf } }), 400, 'validacion');
      }
    });

    it('needs administracion:auditoria:ver as well: a supervisor gets 403 and a permission.denied event', async () => {
      const supervisor = await t.createUser('supervisor');
      const asOf = new Date().toISOString();
      expect((await t.get(`/api/v1/users/${supervisor.id}`, { token: supervisor.token })).status).toBe(200);
      expectProblem(await t.get(`/api/v1/users/${supervisor.id}`, { token: supervisor.token, query: { asOf } }), 403, 'permiso_denegado');
      expectProblem(await t.get(`/api/v1/users/${supervisor.id}/permisos`, { token: supervisor.token, query: { asOf } }), 403, 'permiso_denegado');
      const events = (await t.securityEvents('permission.denied')).filter((e) => e.actor_user_id === supervisor.id);
      expect(events).toHaveLength(2);
      expect(events[0]).toMatchObject({
        result: 'failure',
        metadata: { permission: 'administracion:auditoria:ver', endpoint: '/api/v1/users/:id/permisos', method: 'GET' },
      });
    });

    it('lets an auditor (usuarios:ver and auditoria:ver) read the past', async () => {
      const auditor = await t.createUser('auditor');
      const res = await t.get(`/api/v1/users/${auditor.id}/permisos`, { token: auditor.token, query: { asOf: new Date().toISOString() } });
      expect(res.status).toBe(200);
      expect(res.body.rol).toBe('auditor');
    });
  });
});
