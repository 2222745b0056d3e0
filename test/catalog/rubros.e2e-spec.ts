import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectProblem, TestApp } from '../support/test-app.js';
import { createChain, createProduct, createProductType, createRubro, type RubroNode, statusCounts, uid } from './catalog-fixtures.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { expectCreatedAt } from '../support/resources.js';

const BASE = '/api/v1/admin/rubros';

describe('rubros', () => {
  let t: TestApp, admin: string, adminId: number;
  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const tree = async (query: Record<string, string> = {}): Promise<RubroNode[]> => {
    const res = await t.get(`${BASE}/tree`, { token: admin, query });
    expect(res.status).toBe(200);
    return res.body;
  };
  const findNode = (nodes: RubroNode[], id: number): RubroNode | undefined => {
    for (const n of nodes) {
      if (n.id === id) return n;
      const inner = findNode(n.hijos, id);
      if (inner) return inner;
    }
    return undefined;
  };
  const addAviso = (rubroId: number) => t.query('INSERT INTO avisos (rubro_id) VALUES ($1)', [rubroId]);

  describe('access', () => {
    it('lets the diagramador role manage the tree', async () => {
      const diagramador = await t.createUser('diagramador');
      const res = await t.post(BASE, { nombre: `Diag ${uid()}`, parentId: null }, { token: diagramador.token });
      expect(res.status).toBe(201);
    });
  });

  describe('create and get', () => {
    it('creates a root with 201, the rubro and a Location that resolves', async () => {
      const nombre = `Raíz ${uid()}`;
      const res = await t.post(BASE, { nombre, parentId: null }, { token: admin });
      const expected = { id: expect.any(Number), nombre, parentId: null, activo: true, tieneAvisos: false, nivel: 1 };
      await expectCreatedAt(t, res, BASE, expected, admin);
    });

    it('creates a child one level below its parent', async () => {
      const root = await createRubro(t, admin, `Padre ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo', root.id);
      expect(child).toMatchObject({ parentId: root.id, nivel: 2, activo: true });
    });

    it('treats an absent parentId as a root', async () => {
      const res = await t.post(BASE, { nombre: `Sin padre ${uid()}` }, { token: admin });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ parentId: null, nivel: 1 });
    });

    it('audits rubro.create with the created fields', async () => {
      const root = await createRubro(t, admin, `Auditado ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo auditado', root.id);
      const [event] = await t.auditEvents({ action: 'rubro.create', targetId: String(child.id) });
      expect(event).toMatchObject({ target_type: 'rubro', target_id: String(child.id) });
      expect(event.metadata).toEqual({ after: { nombre: 'Hijo auditado', parentId: root.id } });
    });

    it('answers 404 for a missing parent', async () => {
      expectProblem(await t.post(BASE, { nombre: 'Huérfano', parentId: 999999 }, { token: admin }), 404, 'no_encontrado');
    });

    it('answers 404 for an unknown rubro and 400 for a malformed id', async () => {
      expectProblem(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get(`${BASE}/abc`, { token: admin }), 400, 'validacion');
      expectProblem(await t.get(`${BASE}/0`, { token: admin }), 400, 'validacion');
    });

    it('rejects invalid bodies with 400', async () => {
      for (const body of [
        { nombre: '', parentId: null },
        { nombre: '   ' },
        { nombre: 'x'.repeat(101) },
        { nombre: 'ok', parentId: '3' },
        { nombre: 'ok', parentId: 0 },
        { nombre: 'ok', extra: 1 },
        { parentId: null },
      ]) {
        expectProblem(await t.post(BASE, body, { token: admin }), 400, 'validacion');
      }
    });
  });

  describe('sibling names', () => {
    it('rejects a sibling name clash case-insensitively with 409 duplicado', async () => {
      const root = await createRubro(t, admin, `Hermanos ${uid()}`);
      await createRubro(t, admin, 'Autos', root.id);
      expectProblem(await t.post(BASE, { nombre: 'AUTOS', parentId: root.id }, { token: admin }), 409, 'duplicado');
      expectProblem(await t.post(BASE, { nombre: ' autos ', parentId: root.id }, { token: admin }), 409, 'duplicado');
    });

    it('stores a name single-spaced, so spaces of another width or count inside it clash with the name as shown', async () => {
      const root = await createRubro(t, admin, `Espacios ${uid()}`);
      const usados = await createRubro(t, admin, 'Autos \u00a0 usados', root.id);
      expect(usados.nombre).toBe('Autos usados');
      for (const nombre of ['Autos  usados', 'Autos\u00a0usados', 'Autos\u2009usados', 'Autos\u3000usados', 'AUTOS\u202fUSADOS']) {
        expectProblem(await t.post(BASE, { nombre, parentId: root.id }, { token: admin }), 409, 'duplicado');
      }
      // a tab is no space: refused, as before
      expectProblem(await t.post(BASE, { nombre: 'Autos\tusados', parentId: root.id }, { token: admin }), 400, 'validacion');
      expect(findNode(await tree(), root.id)?.hijos).toHaveLength(1);
    });

    it('takes a name and its look-alikes as one: accents typed as combining marks clash, invisible characters are refused', async () => {
      const root = await createRubro(t, admin, `Parecidos ${uid()}`);
      const nandu = await createRubro(t, admin, 'Ñandú', root.id);
      expect(nandu.nombre).toBe('Ñandú');
      // the same name as some keyboards send it: N + combining tilde, u + combining acute
      expectProblem(await t.post(BASE, { nombre: 'N\u0303andu\u0301', parentId: root.id }, { token: admin }), 409, 'duplicado');
      // a zero-width space, the combining grapheme joiner and a Khmer inherent vowel draw as nothing;
      // a lone accent has no letter to sit on
      for (const nombre of ['\u200bÑandú', '\u200b', '\u0007', 'Ñandú\u034f', 'Ña\u17b4ndú', '\u0301', '\u0301Ñandú']) {
        const res = await t.post(BASE, { nombre, parentId: root.id }, { token: admin });
        expectProblem(res, 400, 'validacion');
        expect(res.body.errors).toEqual([expect.objectContaining({ field: 'nombre', code: 'visibleText' })]);
      }
      expect(findNode(await tree(), root.id)?.hijos).toHaveLength(1);
    });

    it('rejects a root name clash among roots', async () => {
      const nombre = `Raíz única ${uid()}`;
      await createRubro(t, admin, nombre);
      expectProblem(await t.post(BASE, { nombre: nombre.toLowerCase(), parentId: null }, { token: admin }), 409, 'duplicado');
    });

    it('allows the same name under different parents and beside an inactive sibling', async () => {
      const a = await createRubro(t, admin, `A ${uid()}`);
      const b = await createRubro(t, admin, `B ${uid()}`);
      await createRubro(t, admin, 'Motos', a.id);
      await createRubro(t, admin, 'Motos', b.id);
      const old = await createRubro(t, admin, 'Náutica', a.id);
      expect((await t.post(`${BASE}/${old.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.post(BASE, { nombre: 'náutica', parentId: a.id }, { token: admin })).status).toBe(201);
    });

    it('lets exactly one of 20 concurrent creates of one sibling name succeed', async () => {
      const root = await createRubro(t, admin, `Carrera ${uid()}`);
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, { nombre: 'Inmuebles', parentId: root.id }, { token: admin })));
      expect(statusCounts(results)).toEqual({ 201: 1, 409: 19 });
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('duplicado');
      expect(await t.query('SELECT id FROM rubros WHERE parent_id = $1', [root.id])).toHaveLength(1);
    });

    it('lets exactly one of 20 concurrent root creates of one name succeed', async () => {
      const nombre = `Raíz concurrente ${uid()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, { nombre, parentId: null }, { token: admin })));
      expect(statusCounts(results)).toEqual({ 201: 1, 409: 19 });
    });
  });

  describe('leaf rule (avisos)', () => {
    it('rejects creating a child under a rubro with avisos with 409 rubro_con_avisos', async () => {
      const root = await createRubro(t, admin, `Con avisos ${uid()}`);
      await addAviso(root.id);
      expectProblem(await t.post(BASE, { nombre: 'Hijo', parentId: root.id }, { token: admin }), 409, 'rubro_con_avisos');
    });

    it('rejects moving a rubro under a rubro with avisos with 409 rubro_con_avisos', async () => {
      const leaf = await createRubro(t, admin, `Hoja ${uid()}`);
      const other = await createRubro(t, admin, `Suelto ${uid()}`);
      await addAviso(leaf.id);
      expectProblem(await t.post(`${BASE}/${other.id}/move`, { parentId: leaf.id }, { token: admin }), 409, 'rubro_con_avisos');
    });

    it('rejects reactivating a child under a rubro that got avisos while the child was inactive (409 rubro_con_avisos); the leaf stays a leaf', async () => {
      const parent = await createRubro(t, admin, `Padre ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo', parent.id);
      expect((await t.post(`${BASE}/${child.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      await addAviso(parent.id);
      const events = Number((await t.query('SELECT COUNT(*) AS n FROM audit_events'))[0].n);
      expectProblem(await t.post(`${BASE}/${child.id}/reactivate`, undefined, { token: admin }), 409, 'rubro_con_avisos');
      expect((await t.get(`${BASE}/${child.id}`, { token: admin })).body.activo).toBe(false);
      expect(Number((await t.query('SELECT COUNT(*) AS n FROM audit_events'))[0].n)).toBe(events);
      // moved to a parent that may hold children, it reactivates
      const other = await createRubro(t, admin, `Otro ${uid()}`);
      expect((await t.post(`${BASE}/${child.id}/move`, { parentId: other.id }, { token: admin })).status).toBe(200);
      expect((await t.post(`${BASE}/${child.id}/reactivate`, undefined, { token: admin })).body.activo).toBe(true);
    });

    it('reports tieneAvisos on the rubro and in the tree', async () => {
      const root = await createRubro(t, admin, `Marcado ${uid()}`);
      const child = await createRubro(t, admin, 'Con aviso', root.id);
      await addAviso(child.id);
      expect((await t.get(`${BASE}/${child.id}`, { token: admin })).body.tieneAvisos).toBe(true);
      const node = findNode(await tree(), root.id);
      expect(node?.tieneAvisos).toBe(false);
      expect(node?.hijos[0]).toMatchObject({ id: child.id, tieneAvisos: true });
    });
  });

  describe('depth limit (RUBROS_MAX_DEPTH = 10)', () => {
    it('allows a rubro at exactly level 10', async () => {
      const chain = await createChain(t, admin, 9);
      const res = await t.post(BASE, { nombre: 'Nivel 10', parentId: chain[8]!.id }, { token: admin });
      expect(res.status).toBe(201);
      expect(res.body.nivel).toBe(10);
    });

    it('rejects a rubro at level 11 with 409 profundidad_maxima', async () => {
      const chain = await createChain(t, admin, 10);
      expectProblem(await t.post(BASE, { nombre: 'Nivel 11', parentId: chain[9]!.id }, { token: admin }), 409, 'profundidad_maxima');
    });

    it('counts the moved subtree height: a 3-level subtree fits under level 7 but not under level 8', async () => {
      const chain = await createChain(t, admin, 8);
      const subtree = await createChain(t, admin, 3);
      const moved = await t.post(`${BASE}/${subtree[0]!.id}/move`, { parentId: chain[6]!.id }, { token: admin });
      expect(moved.status).toBe(200);
      expect(moved.body.nivel).toBe(8);
      expect((await t.get(`${BASE}/${subtree[2]!.id}`, { token: admin })).body.nivel).toBe(10);

      const back = await t.post(`${BASE}/${subtree[0]!.id}/move`, { parentId: null }, { token: admin });
      expect(back.status).toBe(200);
      expectProblem(await t.post(`${BASE}/${subtree[0]!.id}/move`, { parentId: chain[7]!.id }, { token: admin }), 409, 'profundidad_maxima');
    });

    it('honours RUBROS_MAX_DEPTH from the configuration', async () => {
      const small = await TestApp.create({ env: { RUBROS_MAX_DEPTH: '2' } });
      try {
        const token = await small.adminToken();
        const chain = await createChain(small, token, 2);
        expectProblem(await small.post(BASE, { nombre: 'Nivel 3', parentId: chain[1]!.id }, { token }), 409, 'profundidad_maxima');
      } finally {
        await small.close();
      }
    });
  });

  describe('move', () => {
    it('moves a rubro with its subtree and audits rubro.move with before/after parentId', async () => {
      const from = await createRubro(t, admin, `Origen ${uid()}`);
      const to = await createRubro(t, admin, `Destino ${uid()}`);
      const moving = await createRubro(t, admin, 'Móvil', from.id);
      const grandchild = await createRubro(t, admin, 'Nieto', moving.id);
      const res = await t.post(`${BASE}/${moving.id}/move`, { parentId: to.id }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: moving.id, nombre: 'Móvil', parentId: to.id, activo: true, tieneAvisos: false, nivel: 2 });
      const [event] = await t.auditEvents({ action: 'rubro.move', targetId: String(moving.id) });
      expect(event.metadata).toEqual({ before: { parentId: from.id }, after: { parentId: to.id } });
      const node = findNode(await tree(), to.id);
      expect(node?.hijos.map((h) => h.id)).toEqual([moving.id]);
      expect(node?.hijos[0]?.hijos.map((h) => [h.id, h.nivel])).toEqual([[grandchild.id, 3]]);
    });

    it('moves a rubro to the root level with parentId null', async () => {
      const parent = await createRubro(t, admin, `Padre ${uid()}`);
      const child = await createRubro(t, admin, `Se va ${uid()}`, parent.id);
      const res = await t.post(`${BASE}/${child.id}/move`, { parentId: null }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ parentId: null, nivel: 1 });
      const [event] = await t.auditEvents({ action: 'rubro.move', targetId: String(child.id) });
      expect(event.metadata).toEqual({ before: { parentId: parent.id }, after: { parentId: null } });
    });

    it('rejects a move under itself with 409 movimiento_invalido', async () => {
      const r = await createRubro(t, admin, `Yo ${uid()}`);
      expectProblem(await t.post(`${BASE}/${r.id}/move`, { parentId: r.id }, { token: admin }), 409, 'movimiento_invalido');
    });

    it('rejects a move under a descendant with 409 movimiento_invalido', async () => {
      const chain = await createChain(t, admin, 4);
      expectProblem(await t.post(`${BASE}/${chain[0]!.id}/move`, { parentId: chain[3]!.id }, { token: admin }), 409, 'movimiento_invalido');
      expectProblem(await t.post(`${BASE}/${chain[1]!.id}/move`, { parentId: chain[2]!.id }, { token: admin }), 409, 'movimiento_invalido');
    });

    it('rejects a move under an inactive parent with 409 rubro_inactivo', async () => {
      const inactive = await createRubro(t, admin, `Inactivo ${uid()}`);
      await t.post(`${BASE}/${inactive.id}/deactivate`, undefined, { token: admin });
      const r = await createRubro(t, admin, `Mover ${uid()}`);
      expectProblem(await t.post(`${BASE}/${r.id}/move`, { parentId: inactive.id }, { token: admin }), 409, 'rubro_inactivo');
    });

    it('rejects creating under an inactive parent with 409 rubro_inactivo', async () => {
      const inactive = await createRubro(t, admin, `Inactivo ${uid()}`);
      await t.post(`${BASE}/${inactive.id}/deactivate`, undefined, { token: admin });
      expectProblem(await t.post(BASE, { nombre: 'Hijo', parentId: inactive.id }, { token: admin }), 409, 'rubro_inactivo');
    });

    it('rejects a move next to an active sibling of the same name with 409 duplicado', async () => {
      const a = await createRubro(t, admin, `A ${uid()}`);
      const b = await createRubro(t, admin, `B ${uid()}`);
      await createRubro(t, admin, 'Repetido', a.id);
      const other = await createRubro(t, admin, 'REPETIDO', b.id);
      expectProblem(await t.post(`${BASE}/${other.id}/move`, { parentId: a.id }, { token: admin }), 409, 'duplicado');
    });

    it('answers 404 for an unknown rubro or target parent', async () => {
      const r = await createRubro(t, admin, `Existe ${uid()}`);
      expectProblem(await t.post(`${BASE}/999999/move`, { parentId: null }, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.post(`${BASE}/${r.id}/move`, { parentId: 999999 }, { token: admin }), 404, 'no_encontrado');
    });

    it('requires parentId in the body (null for a root)', async () => {
      const r = await createRubro(t, admin, `Sin destino ${uid()}`);
      expectProblem(await t.post(`${BASE}/${r.id}/move`, {}, { token: admin }), 400, 'validacion');
      expectProblem(await t.post(`${BASE}/${r.id}/move`, { parentId: 'x' }, { token: admin }), 400, 'validacion');
    });

    it('changes nothing and writes no event when moving to the current parent', async () => {
      const parent = await createRubro(t, admin, `Quieto ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo', parent.id);
      const res = await t.post(`${BASE}/${child.id}/move`, { parentId: parent.id }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body.parentId).toBe(parent.id);
      expect(await t.auditEvents({ action: 'rubro.move', targetId: String(child.id) })).toHaveLength(0);
    });

    it('never lets two crossing concurrent moves build a cycle', async () => {
      // A→A1 and B→B1; moving A under B1 and B under A1 at once would close A→B1→B→A1→A.
      for (let round = 0; round < 5; round++) {
        const a = await createRubro(t, admin, `Cruce A ${uid()}`);
        const a1 = await createRubro(t, admin, 'A1', a.id);
        const b = await createRubro(t, admin, `Cruce B ${uid()}`);
        const b1 = await createRubro(t, admin, 'B1', b.id);
        const results = await Promise.all([
          t.post(`${BASE}/${a.id}/move`, { parentId: b1.id }, { token: admin }),
          t.post(`${BASE}/${b.id}/move`, { parentId: a1.id }, { token: admin }),
        ]);
        expect(statusCounts(results)).toEqual({ 200: 1, 409: 1 });
        expect(results.find((r) => r.status === 409)?.body.code).toBe('movimiento_invalido');
        const rows = await t.query<{ id: number; parent_id: number | null }>('SELECT id, parent_id FROM rubros WHERE id IN ($1, $2)', [a.id, b.id]);
        expect(rows.filter((r) => r.parent_id === null)).toHaveLength(1);
      }
    });
  });

  describe('rename', () => {
    it('renames a rubro and audits rubro.update with before/after', async () => {
      const r = await createRubro(t, admin, `Viejo ${uid()}`);
      const res = await t.put(`${BASE}/${r.id}`, { nombre: 'Nuevo nombre' }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...r, nombre: 'Nuevo nombre' });
      const [event] = await t.auditEvents({ action: 'rubro.update', targetId: String(r.id) });
      expect(event.metadata).toEqual({ before: { nombre: r.nombre }, after: { nombre: 'Nuevo nombre' } });
    });

    it('allows changing only the case of the own name', async () => {
      const parent = await createRubro(t, admin, `Caso ${uid()}`);
      const r = await createRubro(t, admin, 'autos', parent.id);
      const res = await t.put(`${BASE}/${r.id}`, { nombre: 'Autos' }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body.nombre).toBe('Autos');
    });

    it('rejects a rename onto an active sibling name with 409 duplicado', async () => {
      const parent = await createRubro(t, admin, `Renombres ${uid()}`);
      await createRubro(t, admin, 'Camiones', parent.id);
      const r = await createRubro(t, admin, 'Utilitarios', parent.id);
      expectProblem(await t.put(`${BASE}/${r.id}`, { nombre: 'camiones' }, { token: admin }), 409, 'duplicado');
    });

    it('answers 404 for an unknown rubro and 400 for a body with parentId', async () => {
      expectProblem(await t.put(`${BASE}/999999`, { nombre: 'x' }, { token: admin }), 404, 'no_encontrado');
      const r = await createRubro(t, admin, `Cuerpo ${uid()}`);
      expectProblem(await t.put(`${BASE}/${r.id}`, { nombre: 'x', parentId: null }, { token: admin }), 400, 'validacion');
    });
  });

  describe('deactivate and reactivate', () => {
    it('checks an active child first (rubro_con_hijos_activos), then an active product (rubro_con_productos_activos)', async () => {
      const rubro = await createRubro(t, admin, `Guardas ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo activo', rubro.id);
      const type = await createProductType(t, admin);
      const product = await createProduct(t, admin, rubro.id, type.id);

      expectProblem(await t.post(`${BASE}/${rubro.id}/deactivate`, undefined, { token: admin }), 409, 'rubro_con_hijos_activos');
      expect((await t.post(`${BASE}/${child.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expectProblem(await t.post(`${BASE}/${rubro.id}/deactivate`, undefined, { token: admin }), 409, 'rubro_con_productos_activos');
      expect((await t.post(`/api/v1/admin/products/${product.id}/deactivate`, undefined, { token: admin })).status).toBe(200);

      const res = await t.post(`${BASE}/${rubro.id}/deactivate`, undefined, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: rubro.id, activo: false });
    });

    itSwitchesActivationIdempotently('rubro', () => ({
      t,
      token: admin,
      actorId: adminId,
      url: (id) => `${BASE}/${id}`,
      create: () => createRubro(t, admin, `Activacion ${uid()}`),
      targetType: 'rubro',
      keeps: ['nombre', 'parentId', 'nivel', 'tieneAvisos'],
    }));

    it('rejects reactivating under an inactive parent with 409 rubro_inactivo', async () => {
      const parent = await createRubro(t, admin, `Padre ${uid()}`);
      const child = await createRubro(t, admin, 'Hijo', parent.id);
      await t.post(`${BASE}/${child.id}/deactivate`, undefined, { token: admin });
      await t.post(`${BASE}/${parent.id}/deactivate`, undefined, { token: admin });
      expectProblem(await t.post(`${BASE}/${child.id}/reactivate`, undefined, { token: admin }), 409, 'rubro_inactivo');
    });

    it('rejects reactivating when an active sibling took the name with 409 duplicado', async () => {
      const parent = await createRubro(t, admin, `Padre ${uid()}`);
      const old = await createRubro(t, admin, 'Ocupado', parent.id);
      await t.post(`${BASE}/${old.id}/deactivate`, undefined, { token: admin });
      await createRubro(t, admin, 'ocupado', parent.id);
      expectProblem(await t.post(`${BASE}/${old.id}/reactivate`, undefined, { token: admin }), 409, 'duplicado');
    });

    it('answers 404 for an unknown rubro', async () => {
      expectProblem(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    });
  });

  describe('tree', () => {
    it('nests rubros with nivel, orders siblings by nombre and leaves inactive ones out', async () => {
      const root = await createRubro(t, admin, `Árbol ${uid()}`);
      const zeta = await createRubro(t, admin, 'zeta', root.id);
      const alfa = await createRubro(t, admin, 'Alfa', root.id);
      const medio = await createRubro(t, admin, 'medio', root.id);
      const nieto = await createRubro(t, admin, 'Nieto', alfa.id);
      const inactivo = await createRubro(t, admin, 'Beta inactivo', root.id);
      await t.post(`${BASE}/${inactivo.id}/deactivate`, undefined, { token: admin });

      const node = findNode(await tree(), root.id);
      expect(node).toEqual({
        ...root,
        hijos: [
          { ...alfa, hijos: [{ ...nieto, hijos: [] }] },
          { ...medio, hijos: [] },
          { ...zeta, hijos: [] },
        ],
      });
    });

    it('includes inactive rubros with incluirInactivos=true', async () => {
      const root = await createRubro(t, admin, `Completo ${uid()}`);
      const a = await createRubro(t, admin, 'A', root.id);
      const b = await createRubro(t, admin, 'B', root.id);
      await t.post(`${BASE}/${b.id}/deactivate`, undefined, { token: admin });
      const node = findNode(await tree({ incluirInactivos: 'true' }), root.id);
      expect(node?.hijos.map((h) => [h.id, h.activo])).toEqual([
        [a.id, true],
        [b.id, false],
      ]);
      expect(findNode(await tree({ incluirInactivos: 'false' }), b.id)).toBeUndefined();
    });

    it('lists roots ordered by nombre at nivel 1', async () => {
      const roots = await tree();
      expect(roots.every((r) => r.nivel === 1 && r.parentId === null)).toBe(true);
      const names = roots.map((r) => r.nombre);
      expect(names).toEqual([...names].sort(new Intl.Collator('es', { sensitivity: 'base' }).compare));
    });

    it('answers each node with exactly id, nombre, parentId, activo, tieneAvisos, nivel and hijos, in that order, as plain JSON', async () => {
      const root = await createRubro(t, admin, `Claves ${uid()} "comillas" \\ ñ`);
      const hijo = await createRubro(t, admin, 'Hijo', root.id);
      await addAviso(hijo.id);
      const res = await t.get(`${BASE}/tree`, { token: admin });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).toBe(JSON.stringify(res.body));
      const node = findNode(res.body as RubroNode[], root.id)!;
      expect(node).toStrictEqual({ ...root, hijos: [{ ...hijo, tieneAvisos: true, hijos: [] }] });
      const keys = ['id', 'nombre', 'parentId', 'activo', 'tieneAvisos', 'nivel', 'hijos'];
      expect(Object.keys(node)).toEqual(keys);
      expect(Object.keys(node.hijos[0]!)).toEqual(keys);
    });

    it('leaves out an active subtree whose ancestor is inactive (rows changed outside the API)', async () => {
      const [root, mid, leaf] = await createChain(t, admin, 3);
      await t.query('UPDATE rubros SET activo = $1 WHERE id = $2', [false, root!.id]);
      const active = await tree();
      expect([root!.id, mid!.id, leaf!.id].map((id) => findNode(active, id))).toEqual([undefined, undefined, undefined]);
      const all = findNode(await tree({ incluirInactivos: 'true' }), root!.id);
      expect(all?.hijos[0]?.hijos[0]).toEqual({ ...leaf, hijos: [] });
    });

    it('leaves out the rubros of a corrupted cyclic parent chain instead of looping', async () => {
      const [a, b] = await createChain(t, admin, 2);
      const other = await createRubro(t, admin, `Sano ${uid()}`);
      await t.query('UPDATE rubros SET parent_id = $1 WHERE id = $2', [b!.id, a!.id]); // a → b → a
      for (const query of [{}, { incluirInactivos: 'true' }] as Array<Record<string, string>>) {
        const nodes = await tree(query);
        expect(findNode(nodes, a!.id)).toBeUndefined();
        expect(findNode(nodes, b!.id)).toBeUndefined();
        expect(findNode(nodes, other.id)).toEqual({ ...other, hijos: [] });
      }
    });

    it('rejects a malformed incluirInactivos with 400', async () => {
      expectProblem(await t.get(`${BASE}/tree`, { token: admin, query: { incluirInactivos: 'yes' } }), 400, 'validacion');
    });
  });
});
