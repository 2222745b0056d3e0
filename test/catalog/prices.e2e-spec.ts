import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { FixedClock } from '../../src/common/context/clock.js';
import { lockRowSql, raceWithHeldRows } from '../support/test-database.js';
import { type CreatedUser, expectProblem, TestApp } from '../support/test-app.js';
import { createProduct, createProductType, createRubro, statusCounts, uid } from './catalog-fixtures.js';

/** 15:00 UTC on 2026-03-10 is 12:00 on 2026-03-10 in Buenos Aires (UTC-3, no DST). */
const NOW = '2026-03-10T15:00:00Z';

describe('product prices', () => {
  const clock = new FixedClock(new Date(NOW));
  let t: TestApp;
  let admin: string;
  let vendedor: CreatedUser;
  let rubroId: number;
  let typeId: number;

  beforeAll(async () => {
    t = await TestApp.create({ clock });
    admin = await t.adminToken();
    vendedor = await t.createUser('vendedor');
    rubroId = (await createRubro(t, admin, `Precios ${uid()}`)).id;
    typeId = (await createProductType(t, admin)).id;
  });
  beforeEach(() => {
    clock.set(NOW);
  });
  afterAll(async () => {
    await t.close();
  });

  const newProduct = async () => (await createProduct(t, admin, rubroId, typeId)).id;
  const addPrice = (productId: number, body: unknown, token = admin) => t.post(`/api/v1/admin/products/${productId}/prices`, body, { token });
  const prices = (productId: number) => `/api/v1/products/${productId}/prices`;

  describe('access', () => {
    it('lets any valid token read the prices of a product', async () => {
      const id = await newProduct();
      expect((await t.get(prices(id), { token: vendedor.token })).status).toBe(200);
    });

    it('answers 404 for an unknown product on every operation', async () => {
      expectProblem(await t.get(prices(999999), { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get(`${prices(999999)}/1`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get(`${prices(999999)}/vigente`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await addPrice(999999, { fechaVigencia: '2026-04-01', monto: 10 }), 404, 'no_encontrado');
    });
  });

  describe('add', () => {
    it('answers 201 with {id, productId, fechaVigencia, monto} and a Location that resolves', async () => {
      const id = await newProduct();
      const res = await addPrice(id, { fechaVigencia: '2026-04-01', monto: 1500.5 });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(Number), productId: id, fechaVigencia: '2026-04-01', monto: 1500.5 });
      expect(res.headers.location).toBe(`${prices(id)}/${res.body.id}`);
      const read = await t.get(res.headers.location as string, { token: vendedor.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ ...res.body, createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) });
    });

    it('audits producto.precio_add on the product', async () => {
      const id = await newProduct();
      const res = await addPrice(id, { fechaVigencia: '2026-04-01', monto: 99.9 });
      const [event] = await t.auditEvents({ action: 'producto.precio_add', targetId: String(id) });
      expect(event).toMatchObject({ target_type: 'producto', target_id: String(id) });
      expect(event.metadata).toEqual({ after: { priceId: res.body.id, fechaVigencia: '2026-04-01', monto: 99.9 } });
    });

    it('keeps nothing when the audit event cannot be written (one transaction)', async () => {
      const id = await newProduct();
      // the product's own audit event is already written: only the price's event fails
      const restore = await t.makeInsertsFail('audit_events', 'audit store unavailable');
      try {
        const res = await addPrice(id, { fechaVigencia: '2026-04-01', monto: 10 });
        expect(res.status).toBe(500);
        expect(res.body.code).toBe('error_interno');
      } finally {
        await restore();
      }
      expect(await t.query('SELECT id FROM product_prices WHERE product_id = $1', [id])).toHaveLength(0);
    });

    it('stores monto as an exact decimal', async () => {
      const id = await newProduct();
      const res = await addPrice(id, { fechaVigencia: '2026-04-01', monto: 1234567.89 });
      expect(res.status).toBe(201);
      const [row] = await t.query<{ monto: string }>('SELECT monto::text AS monto FROM product_prices WHERE id = $1', [res.body.id]);
      expect(row!.monto).toBe('1234567.89');
      expect((await t.get(`${prices(id)}/${res.body.id}`, { token: admin })).body.monto).toBe(1234567.89);
    });

    it('rejects a monto that is not a positive JSON number with at most 2 decimals with 400', async () => {
      const id = await newProduct();
      for (const monto of ['10.5', 0, -1, 10.001, null, true, [10]]) {
        expectProblem(await addPrice(id, { fechaVigencia: '2026-04-01', monto }), 400, 'validacion');
      }
      expectProblem(await addPrice(id, { fechaVigencia: '2026-04-01' }), 400, 'validacion');
      for (const raw of ['1e999', '1.10000000000000001', '10.000000000000001']) {
        // numbers that would arrive as Infinity, 1.1 and 10: refused as sent, never rounded
        expectProblem(
          await t.request('POST', `/api/v1/admin/products/${id}/prices`, { token: admin, raw: `{"fechaVigencia":"2026-04-01","monto":${raw}}` }),
          400,
          'validacion',
        );
      }
      expect(await t.query('SELECT id FROM product_prices WHERE product_id = $1', [id])).toHaveLength(0);
    });

    it('rejects a fechaVigencia that is not exactly yyyy-MM-dd or not a real date with 400', async () => {
      const id = await newProduct();
      for (const fechaVigencia of ['2026-02-30', '2027-02-29', '2026-04-01T00:00:00Z', '2026-4-1', '01/04/2026', ' 2026-04-01', 20260401, null]) {
        expectProblem(await addPrice(id, { fechaVigencia, monto: 10 }), 400, 'validacion');
      }
    });

    it('rejects a fechaVigencia before today in Argentina with 400', async () => {
      const id = await newProduct();
      const res = await addPrice(id, { fechaVigencia: '2026-03-09', monto: 10 });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'fechaVigencia' })]);
    });

    it('accepts a fechaVigencia of today in Argentina', async () => {
      const id = await newProduct();
      expect((await addPrice(id, { fechaVigencia: '2026-03-10', monto: 10 })).status).toBe(201);
    });

    it('at 02:30 UTC still takes the previous day as today, as Buenos Aires does', async () => {
      clock.set('2026-03-11T02:30:00Z'); // 23:30 on 2026-03-10 in Buenos Aires
      const id = await newProduct();
      expectProblem(await addPrice(id, { fechaVigencia: '2026-03-09', monto: 10 }), 400, 'validacion');
      expect((await addPrice(id, { fechaVigencia: '2026-03-10', monto: 10 })).status).toBe(201);
    });

    it('at 03:00 UTC moves on to the new Argentine day and refuses the previous one', async () => {
      clock.set('2026-03-11T03:00:00Z'); // 00:00 on 2026-03-11 in Buenos Aires
      const id = await newProduct();
      expectProblem(await addPrice(id, { fechaVigencia: '2026-03-10', monto: 10 }), 400, 'validacion');
      expect((await addPrice(id, { fechaVigencia: '2026-03-11', monto: 10 })).status).toBe(201);
    });

    it('is forward-only: a date on or before the latest one is 409 precio_no_posterior', async () => {
      const id = await newProduct();
      expect((await addPrice(id, { fechaVigencia: '2026-04-01', monto: 10 })).status).toBe(201);
      expectProblem(await addPrice(id, { fechaVigencia: '2026-04-01', monto: 11 }), 409, 'precio_no_posterior');
      expectProblem(await addPrice(id, { fechaVigencia: '2026-03-20', monto: 11 }), 409, 'precio_no_posterior');
      expect((await addPrice(id, { fechaVigencia: '2026-04-02', monto: 12 })).status).toBe(201);
    });

    it('lets exactly one of 10 concurrent adds with one date succeed', async () => {
      const id = await newProduct();
      const results = await Promise.all(Array.from({ length: 10 }, (_v, i) => addPrice(id, { fechaVigencia: '2026-05-01', monto: 100 + i })));
      expect(statusCounts(results)).toEqual({ 201: 1, 409: 9 });
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('precio_no_posterior');
      expect(await t.query('SELECT id FROM product_prices WHERE product_id = $1', [id])).toHaveLength(1);
      expect(await t.auditEvents({ action: 'producto.precio_add', targetId: String(id) })).toHaveLength(1);
    });

    it('keeps the history forward-only under 10 concurrent adds of different dates', async () => {
      const id = await newProduct();
      const dates = Array.from({ length: 10 }, (_v, i) => `2026-06-${String(20 - i).padStart(2, '0')}`); // newest first
      const results = await Promise.all(dates.map((fechaVigencia) => addPrice(id, { fechaVigencia, monto: 10 })));
      expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'precio_no_posterior'))).toBe(true);
      const rows = await t.query<{ fecha: string }>(
        `SELECT to_char(fecha_vigencia, 'YYYY-MM-DD') AS fecha FROM product_prices WHERE product_id = $1 ORDER BY id`,
        [id],
      );
      const inInsertOrder = rows.map((r) => r.fecha);
      expect(inInsertOrder).toEqual([...inInsertOrder].sort());
      expect(new Set(inInsertOrder).size).toBe(inInsertOrder.length);
      expect(inInsertOrder.length).toBe(results.filter((r) => r.status === 201).length);
    });

    it('refuses an add when another add for the product committed while it was in flight, even one of an earlier date: of two concurrent adds at most one succeeds', async () => {
      const id = await newProduct();
      const res = await raceWithHeldRows(t.db, t.engine, {
        what: 'the add of 2026-07-10',
        hold: (sql) => sql(lockRowSql(t.engine, 'products'), [id]),
        request: () => addPrice(id, { fechaVigencia: '2026-07-10', monto: 20 }),
        // the other add: an earlier date, committed while this one waits for the product
        meanwhile: (sql) =>
          sql('INSERT INTO product_prices (product_id, fecha_vigencia, monto, created_at) VALUES ($1, $2, $3, $4)', [
            id,
            '2026-07-01',
            10,
            new Date(),
          ]),
      });
      expectProblem(res, 409, 'precio_no_posterior');
      expect(res.body.detail).toContain('2026-07-01');
      expect(await t.query('SELECT id FROM product_prices WHERE product_id = $1', [id])).toHaveLength(1);
      expect(await t.auditEvents({ action: 'producto.precio_add', targetId: String(id) })).toHaveLength(0);
      // read again, the caller may add it now
      expect((await addPrice(id, { fechaVigencia: '2026-07-10', monto: 20 })).status).toBe(201);
    });

    it('offers no update or delete of prices', async () => {
      const id = await newProduct();
      const price = (await addPrice(id, { fechaVigencia: '2026-04-01', monto: 10 })).body;
      for (const path of [`/api/v1/admin/products/${id}/prices/${price.id}`, `${prices(id)}/${price.id}`]) {
        expect((await t.put(path, { fechaVigencia: '2026-04-02', monto: 1 }, { token: admin })).status).toBe(404);
        expect((await t.delete(path, { token: admin })).status).toBe(404);
      }
      expect((await t.get(`${prices(id)}/${price.id}`, { token: admin })).body.monto).toBe(10);
    });
  });

  describe('read', () => {
    it('answers an empty list for a product without prices', async () => {
      const id = await newProduct();
      const res = await t.get(prices(id), { token: vendedor.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
    });

    it('lists prices newest fechaVigencia first', async () => {
      const id = await newProduct();
      for (const fechaVigencia of ['2026-03-15', '2026-04-01', '2026-05-01']) await addPrice(id, { fechaVigencia, monto: 10 });
      const res = await t.get(prices(id), { token: vendedor.token });
      expect(res.status).toBe(200);
      expect(res.body.map((p: { fechaVigencia: string }) => p.fechaVigencia)).toEqual(['2026-05-01', '2026-04-01', '2026-03-15']);
      expect(res.body[0]).toEqual({ id: expect.any(Number), productId: id, fechaVigencia: '2026-05-01', monto: 10, createdAt: expect.any(String) });
    });

    it("answers 404 for a price read through another product's path", async () => {
      const a = await newProduct();
      const b = await newProduct();
      const price = (await addPrice(a, { fechaVigencia: '2026-04-01', monto: 10 })).body;
      expect((await t.get(`${prices(a)}/${price.id}`, { token: admin })).status).toBe(200);
      expectProblem(await t.get(`${prices(b)}/${price.id}`, { token: admin }), 404, 'no_encontrado');
      expectProblem(await t.get(`${prices(a)}/999999`, { token: admin }), 404, 'no_encontrado');
    });

    it('answers 400 for a malformed price id', async () => {
      const id = await newProduct();
      expectProblem(await t.get(`${prices(id)}/abc`, { token: admin }), 400, 'validacion');
    });
  });

  describe('vigente', () => {
    it('answers the latest price dated on or before fecha', async () => {
      const id = await newProduct();
      const march = (await addPrice(id, { fechaVigencia: '2026-03-15', monto: 100 })).body;
      const april = (await addPrice(id, { fechaVigencia: '2026-04-01', monto: 200 })).body;
      const at = async (fecha: string) => (await t.get(`${prices(id)}/vigente`, { token: vendedor.token, query: { fecha } })).body;
      expect(await at('2026-03-15')).toEqual({ ...march, createdAt: expect.any(String) });
      expect((await at('2026-03-31')).id).toBe(march.id);
      expect((await at('2026-04-01')).id).toBe(april.id);
      expect((await at('2030-01-01')).monto).toBe(200);
    });

    it('answers 404 sin_precio_vigente when no price applies', async () => {
      const id = await newProduct();
      expectProblem(await t.get(`${prices(id)}/vigente`, { token: admin, query: { fecha: '2026-06-01' } }), 404, 'sin_precio_vigente');
      await addPrice(id, { fechaVigencia: '2026-03-15', monto: 100 });
      expectProblem(await t.get(`${prices(id)}/vigente`, { token: admin, query: { fecha: '2026-03-14' } }), 404, 'sin_precio_vigente');
    });

    it('defaults fecha to today in Argentina', async () => {
      const id = await newProduct();
      await addPrice(id, { fechaVigencia: '2026-03-15', monto: 100 });
      expectProblem(await t.get(`${prices(id)}/vigente`, { token: admin }), 404, 'sin_precio_vigente');
      clock.set('2026-03-16T02:30:00Z'); // still 2026-03-15 in Buenos Aires
      expect((await t.get(`${prices(id)}/vigente`, { token: admin })).body.monto).toBe(100);
      clock.set('2026-03-15T02:30:00Z'); // still 2026-03-14 in Buenos Aires
      expectProblem(await t.get(`${prices(id)}/vigente`, { token: admin }), 404, 'sin_precio_vigente');
    });

    it('rejects a fecha that is not exactly yyyy-MM-dd with 400', async () => {
      const id = await newProduct();
      for (const fecha of ['2026-02-30', '2026-03-15T00:00:00Z', 'hoy', '']) {
        expectProblem(await t.get(`${prices(id)}/vigente`, { token: admin, query: { fecha } }), 400, 'validacion');
      }
    });
  });
});
