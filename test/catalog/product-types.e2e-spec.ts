import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CreatedUser, expectProblem, TestApp } from '../support/test-app.js';
import { createProduct, createProductType, createRubro, statusCounts, uid } from './catalog-fixtures.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';

const READ = '/api/v1/product-types';
const ADMIN = '/api/v1/admin/product-types';

describe('product types', () => {
  let t: TestApp, admin: string, adminId: number;
  let consulta: CreatedUser;

  beforeAll(async () => {
    ({ t, admin, adminId } = await TestApp.withAdmin());
    consulta = await t.createUser('consulta');
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('lets any valid token read', async () => {
      const type = await createProductType(t, admin);
      expect((await t.get(READ, { token: consulta.token })).status).toBe(200);
      expect((await t.get(`${READ}/${type.id}`, { token: consulta.token })).status).toBe(200);
    });
  });

  describe('create', () => {
    it('creates with 201, the type and a Location at the public read path that resolves', async () => {
      const codigo = `AVISO_${uid()}`;
      const fields = { codigo, nombre: 'Aviso clasificado', descripcion: 'Por palabra' };
      await expectCreatedAt(t, await t.post(ADMIN, fields, { token: admin }), READ, createdResource(fields), consulta.token);
    });

    it('audits tipo_producto.create with the created fields', async () => {
      const codigo = `AUD_${uid()}`;
      const type = (await t.post(ADMIN, { codigo, nombre: 'Auditado' }, { token: admin })).body;
      await expectCreateAudited(t, 'tipo_producto', type.id, adminId, { codigo, nombre: 'Auditado', descripcion: '' });
    });

    it('rejects a duplicate codigo with 409 duplicado, also when the holder is inactive', async () => {
      const type = await createProductType(t, admin);
      expectProblem(await t.post(ADMIN, { codigo: type.codigo, nombre: 'Otro' }, { token: admin }), 409, 'duplicado');
      await t.post(`${ADMIN}/${type.id}/deactivate`, undefined, { token: admin });
      expectProblem(await t.post(ADMIN, { codigo: type.codigo, nombre: 'Otro' }, { token: admin }), 409, 'duplicado');
    });

    it('lets exactly one of 20 concurrent creates of one codigo succeed', async () => {
      const codigo = `RACE_${uid()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post(ADMIN, { codigo, nombre: 'Carrera' }, { token: admin })));
      expect(statusCounts(results)).toEqual({ 201: 1, 409: 19 });
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('duplicado');
    });

    it('rejects invalid bodies with 400', async () => {
      for (const body of [
        { codigo: 'lower', nombre: 'x' },
        { codigo: 'A'.repeat(21), nombre: 'x' },
        { codigo: 'CON ESPACIO', nombre: 'x' },
        { codigo: `OK_${uid()}`, nombre: '' },
        { codigo: `OK_${uid()}`, nombre: 'x', descripcion: 5 },
        { codigo: `OK_${uid()}`, nombre: 'x', descripcion: null },
        { codigo: `OK_${uid()}`, nombre: 'x', extra: true },
        { nombre: 'x' },
      ]) {
        expectProblem(await t.post(ADMIN, body, { token: admin }), 400, 'validacion');
      }
    });
  });

  describe('read', () => {
    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expectProblem(await t.get(`${READ}/999999`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get(`${READ}/x1`, { token: admin }), 400, 'validacion');
    });

    it('lists paged, ordered by codigo, filtered by activo and search', async () => {
      const tag = uid();
      const a = await createProductType(t, admin, `ZA_${tag}`);
      const b = await createProductType(t, admin, `ZB_${tag}`);
      const c = await createProductType(t, admin, `ZC_${tag}`);
      await t.post(`${ADMIN}/${b.id}/deactivate`, undefined, { token: admin });

      const all = await t.get(READ, { token: consulta.token, query: { search: tag.toLowerCase() } });
      expect(all.status).toBe(200);
      expect(all.body).toEqual({
        items: [expect.objectContaining({ id: a.id }), expect.objectContaining({ id: b.id }), expect.objectContaining({ id: c.id })],
        total: 3,
        page: 1,
        pageSize: 20,
      });

      const active = await t.get(READ, { token: consulta.token, query: { search: tag, activo: true } });
      expect(active.body.items.map((x: { id: number }) => x.id)).toEqual([a.id, c.id]);
      const inactive = await t.get(READ, { token: consulta.token, query: { search: tag, activo: false } });
      expect(inactive.body.items.map((x: { id: number }) => x.id)).toEqual([b.id]);

      const page2 = await t.get(READ, { token: consulta.token, query: { search: tag, page: 2, pageSize: 2 } });
      expect(page2.body).toMatchObject({ total: 3, page: 2, pageSize: 2 });
      expect(page2.body.items.map((x: { id: number }) => x.id)).toEqual([c.id]);
    });

    it('matches search by nombre, case-insensitively, with LIKE wildcards taken literally', async () => {
      const tag = uid();
      const res = await t.post(ADMIN, { codigo: `N_${tag}`, nombre: `Edicto 100% ${tag}` }, { token: admin });
      expect((await t.get(READ, { token: admin, query: { search: `EDICTO 100% ${tag}` } })).body.total).toBe(1);
      expect((await t.get(READ, { token: admin, query: { search: `edicto 1_0% ${tag}` } })).body.total).toBe(0);
      expect(res.status).toBe(201);
    });

    it('reads a name and its search single-spaced: spaces of another width or count between the words still find it', async () => {
      const tag = uid();
      const res = await t.post(ADMIN, { codigo: `S_${tag}`, nombre: `Aviso\u00a0\u00a0clasificado ${tag}` }, { token: admin });
      expect(res.body.nombre).toBe(`Aviso clasificado ${tag}`);
      for (const search of [`aviso  clasificado ${tag}`, `aviso\u2009clasificado\u3000${tag}`]) {
        expect((await t.get(READ, { token: admin, query: { search } })).body.total).toBe(1);
      }
    });

    it('rejects out-of-range paging and malformed filters with 400', async () => {
      for (const query of [{ page: 0 }, { pageSize: 101 }, { pageSize: 'x' }, { activo: 'si' }]) {
        expectProblem(await t.get(READ, { token: admin, query }), 400, 'validacion');
      }
    });
  });

  describe('update', () => {
    it('updates nombre and descripcion and audits tipo_producto.update with before/after', async () => {
      const type = await createProductType(t, admin);
      const res = await t.put(`${ADMIN}/${type.id}`, { nombre: 'Nuevo', descripcion: 'Nueva' }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: type.id, codigo: type.codigo, nombre: 'Nuevo', descripcion: 'Nueva' });
      const [event] = await t.auditEvents({ action: 'tipo_producto.update', targetId: String(type.id) });
      expect(event.metadata).toEqual({
        before: { nombre: `Tipo ${type.codigo}`, descripcion: 'para tests' },
        after: { nombre: 'Nuevo', descripcion: 'Nueva' },
      });
    });

    it('counts lengths as the column does: a descripcion of 500 UTF-16 units fits, one more (a variation selector) is 400, not a store error', async () => {
      const type = await createProductType(t, admin);
      // ❤️ is U+2764 and U+FE0F: two units, of which class-validator's own MaxLength counted one
      const fits = `${'a'.repeat(498)}❤️`;
      const res = await t.put(`${ADMIN}/${type.id}`, { nombre: 'Largo', descripcion: fits }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body.descripcion).toBe(fits);
      for (const descripcion of [`${'a'.repeat(499)}❤️`, '❤️'.repeat(300), '😀'.repeat(251)]) {
        const refused = await t.put(`${ADMIN}/${type.id}`, { nombre: 'Largo', descripcion }, { token: admin });
        expectProblem(refused, 400, 'validacion');
        expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'descripcion', code: 'maxLength' })]);
        const created = await t.post(ADMIN, { codigo: `L_${uid()}`, nombre: 'Largo', descripcion }, { token: admin });
        expectProblem(created, 400, 'validacion');
      }
      expect((await t.get(`${READ}/${type.id}`, { token: admin })).body.descripcion).toBe(fits);
    });

    it('refuses descripcion null (the field is a string) instead of keeping the old text', async () => {
      const type = await createProductType(t, admin);
      const res = await t.put(`${ADMIN}/${type.id}`, { nombre: 'x', descripcion: null }, { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'descripcion', code: 'isString' })]);
    });

    it('keeps descripcion when the body leaves it out', async () => {
      const type = await createProductType(t, admin);
      const res = await t.put(`${ADMIN}/${type.id}`, { nombre: 'Solo nombre' }, { token: admin });
      expect(res.body.descripcion).toBe('para tests');
    });

    it('rejects codigo in the body with 400 campo_inmutable', async () => {
      const type = await createProductType(t, admin);
      expectProblem(await t.put(`${ADMIN}/${type.id}`, { nombre: 'x', codigo: type.codigo }, { token: admin }), 400, 'campo_inmutable');
    });

    it('rejects updating an inactive product type with 409 tipo_producto_inactivo', async () => {
      const type = await createProductType(t, admin);
      await t.post(`${ADMIN}/${type.id}/deactivate`, undefined, { token: admin });
      expectProblem(await t.put(`${ADMIN}/${type.id}`, { nombre: 'x' }, { token: admin }), 409, 'tipo_producto_inactivo');
    });

    it('answers 404 for an unknown product type', async () => {
      expectProblem(await t.put(`${ADMIN}/999999`, { nombre: 'x' }, { token: admin }), 404, 'no_encontrado');
    });
  });

  describe('deactivate and reactivate', () => {
    it('rejects deactivating while an active product uses it with 409 tipo_producto_en_uso', async () => {
      const type = await createProductType(t, admin);
      const rubro = await createRubro(t, admin, `Rubro ${uid()}`);
      const product = await createProduct(t, admin, rubro.id, type.id);
      expectProblem(await t.post(`${ADMIN}/${type.id}/deactivate`, undefined, { token: admin }), 409, 'tipo_producto_en_uso');
      await t.post(`/api/v1/admin/products/${product.id}/deactivate`, undefined, { token: admin });
      expect((await t.post(`${ADMIN}/${type.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
    });

    itSwitchesActivationIdempotently('product type', () => ({
      t,
      token: admin,
      actorId: adminId,
      url: (id) => `${ADMIN}/${id}`,
      create: () => createProductType(t, admin),
      targetType: 'tipo_producto',
      keeps: ['codigo', 'nombre'],
    }));

    it('answers 404 for an unknown product type', async () => {
      expectProblem(await t.post(`${ADMIN}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.post(`${ADMIN}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    });
  });
});
