import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CreatedUser, expectProblem, TestApp } from '../support/test-app.js';
import { createProduct, createProductType, createRubro, type Rubro, statusCounts, uid } from './catalog-fixtures.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';

const READ = '/api/v1/products';
const ADMIN = '/api/v1/admin/products';

describe('products', () => {
  let t: TestApp, admin: string, adminId: number;
  let vendedor: CreatedUser;
  let rubro: Rubro;
  let type: { id: number; codigo: string };

  beforeAll(async () => {
    ({ t, admin, adminId } = await TestApp.withAdmin());
    vendedor = await t.createUser('vendedor');
    rubro = await createRubro(t, admin, `Productos ${uid()}`);
    type = await createProductType(t, admin);
  });
  afterAll(() => t.close());

  const inactiveRubro = async () => {
    const r = await createRubro(t, admin, `Inactivo ${uid()}`);
    await t.post(`/api/v1/admin/rubros/${r.id}/deactivate`, undefined, { token: admin });
    return r;
  };
  const inactiveType = async () => {
    const pt = await createProductType(t, admin);
    await t.post(`/api/v1/admin/product-types/${pt.id}/deactivate`, undefined, { token: admin });
    return pt;
  };

  describe('access', () => {
    it('lets any valid token read a product', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      expect((await t.get(READ, { token: vendedor.token })).status).toBe(200);
      expect((await t.get(`${READ}/${product.id}`, { token: vendedor.token })).status).toBe(200);
    });
  });

  describe('create', () => {
    it('creates with 201, the product and a Location at the public read path that resolves', async () => {
      const codigo = `CLASIF_${uid()}`;
      const fields = { codigo, nombre: 'Clasificado', rubroId: rubro.id, productTypeId: type.id };
      await expectCreatedAt(t, await t.post(ADMIN, fields, { token: admin }), READ, createdResource(fields), vendedor.token);
    });

    it('audits producto.create with the created fields', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      const after = { codigo: product.codigo, nombre: `Producto ${product.codigo}`, rubroId: rubro.id, productTypeId: type.id };
      await expectCreateAudited(t, 'producto', product.id, adminId, after);
    });

    it('rejects an inactive product type with 409 tipo_producto_inactivo', async () => {
      const pt = await inactiveType();
      expectProblem(
        await t.post(ADMIN, { codigo: `P_${uid()}`, nombre: 'x', rubroId: rubro.id, productTypeId: pt.id }, { token: admin }),
        409,
        'tipo_producto_inactivo',
      );
    });

    it('rejects an inactive rubro with 409 rubro_inactivo', async () => {
      const r = await inactiveRubro();
      expectProblem(
        await t.post(ADMIN, { codigo: `P_${uid()}`, nombre: 'x', rubroId: r.id, productTypeId: type.id }, { token: admin }),
        409,
        'rubro_inactivo',
      );
    });

    it('answers 404 for a missing rubro or product type', async () => {
      expectProblem(
        await t.post(ADMIN, { codigo: `P_${uid()}`, nombre: 'x', rubroId: 999999, productTypeId: type.id }, { token: admin }),
        404,
        'no_encontrado',
      );
      expectProblem(
        await t.post(ADMIN, { codigo: `P_${uid()}`, nombre: 'x', rubroId: rubro.id, productTypeId: 999999 }, { token: admin }),
        404,
        'no_encontrado',
      );
    });

    it('rejects a duplicate codigo with 409 duplicado', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      expectProblem(
        await t.post(ADMIN, { codigo: product.codigo, nombre: 'Otro', rubroId: rubro.id, productTypeId: type.id }, { token: admin }),
        409,
        'duplicado',
      );
    });

    it('lets exactly one of 20 concurrent creates of one codigo succeed', async () => {
      const codigo = `RACE_${uid()}`;
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.post(ADMIN, { codigo, nombre: 'Carrera', rubroId: rubro.id, productTypeId: type.id }, { token: admin })),
      );
      expect(statusCounts(results)).toEqual({ 201: 1, 409: 19 });
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('duplicado');
    });

    it('rejects invalid bodies with 400', async () => {
      const ok = { codigo: `OK_${uid()}`, nombre: 'x', rubroId: rubro.id, productTypeId: type.id };
      for (const body of [
        { ...ok, codigo: 'minus' },
        { ...ok, nombre: ' ' },
        { ...ok, rubroId: '1' },
        { ...ok, productTypeId: 0 },
        { ...ok, rubroId: 1.5 },
        { ...ok, extra: 1 },
        { codigo: ok.codigo },
      ]) {
        expectProblem(await t.post(ADMIN, body, { token: admin }), 400, 'validacion');
      }
    });
  });

  describe('read', () => {
    it('answers 404 for an unknown product', async () => {
      expectProblem(await t.get(`${READ}/999999`, { token: admin }), 404, 'no_encontrado');
    });

    it('lists paged with the rubroId, productTypeId, activo and search filters', async () => {
      const tag = uid();
      const r2 = await createRubro(t, admin, `Otro rubro ${tag}`);
      const t2 = await createProductType(t, admin);
      const p1 = await createProduct(t, admin, rubro.id, type.id, `L_${tag}_1`);
      const p2 = await createProduct(t, admin, r2.id, type.id, `L_${tag}_2`);
      const p3 = await createProduct(t, admin, r2.id, t2.id, `L_${tag}_3`);
      await t.post(`${ADMIN}/${p3.id}/deactivate`, undefined, { token: admin });
      const ids = async (query: Record<string, string | number | boolean>) => {
        const res = await t.get(READ, { token: vendedor.token, query: { search: tag, ...query } });
        expect(res.status).toBe(200);
        return res.body.items.map((p: { id: number }) => p.id);
      };
      expect(await ids({})).toEqual([p1.id, p2.id, p3.id]);
      expect(await ids({ rubroId: r2.id })).toEqual([p2.id, p3.id]);
      expect(await ids({ productTypeId: t2.id })).toEqual([p3.id]);
      expect(await ids({ activo: true })).toEqual([p1.id, p2.id]);
      expect(await ids({ activo: false, rubroId: r2.id })).toEqual([p3.id]);
      const page = await t.get(READ, { token: vendedor.token, query: { search: tag.toLowerCase(), page: 2, pageSize: 2 } });
      expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2, items: [expect.objectContaining({ id: p3.id })] });
    });

    it('rejects malformed filters with 400', async () => {
      for (const query of [{ rubroId: 'x' }, { productTypeId: '0' }, { activo: '1' }, { pageSize: 0 }]) {
        expectProblem(await t.get(READ, { token: admin, query }), 400, 'validacion');
      }
    });
  });

  describe('update', () => {
    it('updates nombre, rubro and product type and audits producto.update with before/after', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      const r2 = await createRubro(t, admin, `Destino ${uid()}`);
      const t2 = await createProductType(t, admin);
      const res = await t.put(`${ADMIN}/${product.id}`, { nombre: 'Renombrado', rubroId: r2.id, productTypeId: t2.id }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: product.id, codigo: product.codigo, nombre: 'Renombrado', rubroId: r2.id, productTypeId: t2.id });
      const [event] = await t.auditEvents({ action: 'producto.update', targetId: String(product.id) });
      expect(event.metadata).toEqual({
        before: { nombre: `Producto ${product.codigo}`, rubroId: rubro.id, productTypeId: type.id },
        after: { nombre: 'Renombrado', rubroId: r2.id, productTypeId: t2.id },
      });
    });

    it('rejects moving it to an inactive rubro (409 rubro_inactivo) or type (409 tipo_producto_inactivo)', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      const r = await inactiveRubro();
      const pt = await inactiveType();
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { nombre: 'x', rubroId: r.id, productTypeId: type.id }, { token: admin }),
        409,
        'rubro_inactivo',
      );
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { nombre: 'x', rubroId: rubro.id, productTypeId: pt.id }, { token: admin }),
        409,
        'tipo_producto_inactivo',
      );
    });

    it('answers 404 for an unknown product or missing references', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      expectProblem(
        await t.put(`${ADMIN}/999999`, { nombre: 'x', rubroId: rubro.id, productTypeId: type.id }, { token: admin }),
        404,
        'no_encontrado',
      );
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { nombre: 'x', rubroId: 999999, productTypeId: type.id }, { token: admin }),
        404,
        'no_encontrado',
      );
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { nombre: 'x', rubroId: rubro.id, productTypeId: 999999 }, { token: admin }),
        404,
        'no_encontrado',
      );
    });

    it('rejects codigo in the body with 400 campo_inmutable', async () => {
      const product = await createProduct(t, admin, rubro.id, type.id);
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { codigo: product.codigo, nombre: 'x', rubroId: rubro.id, productTypeId: type.id }, { token: admin }),
        400,
        'campo_inmutable',
      );
    });
  });

  describe('deactivate and reactivate', () => {
    itSwitchesActivationIdempotently('product', () => ({
      t,
      token: admin,
      actorId: adminId,
      url: (id) => `${ADMIN}/${id}`,
      create: () => createProduct(t, admin, rubro.id, type.id),
      targetType: 'producto',
      keeps: ['codigo', 'nombre', 'rubroId', 'productTypeId'],
    }));

    it('rejects reactivating a product whose rubro is inactive with 409 rubro_inactivo', async () => {
      const r = await createRubro(t, admin, `Se apaga ${uid()}`);
      const product = await createProduct(t, admin, r.id, type.id);
      await t.post(`${ADMIN}/${product.id}/deactivate`, undefined, { token: admin });
      expect((await t.post(`/api/v1/admin/rubros/${r.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expectProblem(await t.post(`${ADMIN}/${product.id}/reactivate`, undefined, { token: admin }), 409, 'rubro_inactivo');
    });

    it('lets an inactive product whose rubro and type were deactivated after it be re-sent (200, nothing written) and renamed in them, but not moved to another inactive one', async () => {
      const r = await createRubro(t, admin, `Se apaga ${uid()}`);
      const pt = await createProductType(t, admin);
      const product = await createProduct(t, admin, r.id, pt.id);
      await t.post(`${ADMIN}/${product.id}/deactivate`, undefined, { token: admin });
      expect((await t.post(`/api/v1/admin/rubros/${r.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      expect((await t.post(`/api/v1/admin/product-types/${pt.id}/deactivate`, undefined, { token: admin })).status).toBe(200);
      const before = await t.get(`${READ}/${product.id}`, { token: admin });
      const events = Number((await t.query('SELECT COUNT(*) AS n FROM audit_events'))[0].n);

      const same = await t.put(
        `${ADMIN}/${product.id}`,
        { nombre: `Producto ${product.codigo}`, rubroId: r.id, productTypeId: pt.id },
        { token: admin },
      );
      expect(same.status).toBe(200);
      expect(same.headers.etag).toBe(before.headers.etag);
      expect(Number((await t.query('SELECT COUNT(*) AS n FROM audit_events'))[0].n)).toBe(events);

      const renamed = await t.put(`${ADMIN}/${product.id}`, { nombre: 'Renombrado inactivo', rubroId: r.id, productTypeId: pt.id }, { token: admin });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ nombre: 'Renombrado inactivo', activo: false, rubroId: r.id, productTypeId: pt.id });

      const other = await inactiveRubro();
      expectProblem(
        await t.put(`${ADMIN}/${product.id}`, { nombre: 'x', rubroId: other.id, productTypeId: pt.id }, { token: admin }),
        409,
        'rubro_inactivo',
      );
      // an active product's rubro and type are always checked
      const active = await createProduct(t, admin, rubro.id, type.id);
      expectProblem(
        await t.put(`${ADMIN}/${active.id}`, { nombre: 'x', rubroId: rubro.id, productTypeId: (await inactiveType()).id }, { token: admin }),
        409,
        'tipo_producto_inactivo',
      );
    });

    it('answers 404 for an unknown product', async () => {
      expectProblem(await t.post(`${ADMIN}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.post(`${ADMIN}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    });
  });
});
