import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectProblem, TestApp } from '../support/test-app.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { created, createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';
import { MEDIOS, deactivateMedioAs, newMedio } from './medios-fixtures.js';

const BASE = '/api/v1/admin/puntos-de-venta';

describe('puntos de venta', () => {
  let t: TestApp, admin: string, adminId: number;
  let numero = 0;
  const nextNumero = () => ++numero;

  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const createMedio = () => newMedio(t, admin);

  const createPdv = (medioId: number, fields: Partial<{ numeroAFIP: number; nombre: string; domicilio: string }> = {}) =>
    created(t.post(BASE, { medioId, numeroAFIP: nextNumero(), nombre: 'Casa central', domicilio: 'Calle 1', ...fields }, { token: admin }));

  const deactivateMedio = (id: number) => deactivateMedioAs(t, admin, id);

  it('serves the eight operations to contable, which holds administracion:puntos_de_venta:gestionar but not the medios permission', async () => {
    const medio = await createMedio();
    const contable = await t.createUser('contable');
    const created = await t.post(BASE, { medioId: medio.id, numeroAFIP: nextNumero(), nombre: 'x', domicilio: 'x' }, { token: contable.token });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const n = created.body.numeroAFIP;
    expect((await t.get(BASE, { token: contable.token })).status).toBe(200);
    expect((await t.get(`${BASE}/${id}`, { token: contable.token })).status).toBe(200);
    expect((await t.put(`${BASE}/${id}`, { numeroAFIP: n, nombre: 'y', domicilio: 'y' }, { token: contable.token })).status).toBe(200);
    expect((await t.post(`${BASE}/${id}/deactivate`, undefined, { token: contable.token })).status).toBe(200);
    expect((await t.post(`${BASE}/${id}/reactivate`, undefined, { token: contable.token })).status).toBe(200);
    expect((await t.get(`${MEDIOS}/${medio.id}/puntos-de-venta`, { token: contable.token })).status).toBe(200);
    expect((await t.get(`${BASE}/lookup`, { token: contable.token, query: { medioId: medio.id, numeroAFIP: n } })).status).toBe(200);
    expectProblem(await t.get(MEDIOS, { token: contable.token }), 403, 'permiso_denegado');
  });

  it('creates a point of sale with 201, the resource and a Location that resolves to it', async () => {
    const medio = await createMedio();
    const fields = { medioId: medio.id, numeroAFIP: 4321, nombre: 'Sucursal Centro', domicilio: 'Av. Belgrano 100' };
    await expectCreatedAt(t, await t.post(BASE, fields, { token: admin }), BASE, createdResource(fields), admin);
  });

  it('audits punto_de_venta.create with the actor and {after}', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id, { nombre: 'Kiosco', domicilio: 'Plaza' });
    await expectCreateAudited(t, 'punto_de_venta', pdv.id, adminId, {
      medioId: medio.id,
      numeroAFIP: pdv.numeroAFIP,
      nombre: 'Kiosco',
      domicilio: 'Plaza',
    });
  });

  it('accepts numeroAFIP 1 and 99999 and rejects 0, 100000, a string, a fraction and null with 400 validacion', async () => {
    const medio = await createMedio();
    expect((await createPdv(medio.id, { numeroAFIP: 1 })).numeroAFIP).toBe(1);
    expect((await createPdv(medio.id, { numeroAFIP: 99999 })).numeroAFIP).toBe(99999);
    for (const numeroAFIP of [0, 100000, -5, '7', 7.5, null]) {
      const res = await t.post(BASE, { medioId: medio.id, numeroAFIP, nombre: 'x', domicilio: 'x' }, { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'numeroAFIP' })]));
    }
  });

  it('rejects missing fields and unknown properties with 400 validacion', async () => {
    const medio = await createMedio();
    expectProblem(await t.post(BASE, { medioId: medio.id, numeroAFIP: nextNumero(), nombre: 'x' }, { token: admin }), 400, 'validacion');
    expectProblem(
      await t.post(BASE, { medioId: medio.id, numeroAFIP: nextNumero(), nombre: 'x', domicilio: 'x', proximoNumero: 1 }, { token: admin }),
      400,
      'validacion',
    );
  });

  it('answers 404 no_encontrado when creating a point of sale under a medio that does not exist', async () => {
    expectProblem(await t.post(BASE, { medioId: 999999, numeroAFIP: 1, nombre: 'x', domicilio: 'x' }, { token: admin }), 404, 'no_encontrado');
  });

  it('answers 409 medio_inactivo when creating a point of sale under an inactive medio', async () => {
    const medio = await createMedio();
    await deactivateMedio(medio.id);
    expectProblem(await t.post(BASE, { medioId: medio.id, numeroAFIP: 1, nombre: 'x', domicilio: 'x' }, { token: admin }), 409, 'medio_inactivo');
    expect(await t.query('SELECT id FROM puntos_de_venta WHERE medio_id = $1', [medio.id])).toHaveLength(0);
  });

  it('rejects a numeroAFIP already used in the same medio with 409 duplicado, also by an inactive point of sale', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id);
    const body = { medioId: medio.id, numeroAFIP: pdv.numeroAFIP, nombre: 'otro', domicilio: 'otro' };
    expectProblem(await t.post(BASE, body, { token: admin }), 409, 'duplicado');
    await t.post(`${BASE}/${pdv.id}/deactivate`, undefined, { token: admin });
    expectProblem(await t.post(BASE, body, { token: admin }), 409, 'duplicado');
  });

  it('allows the same numeroAFIP in another medio', async () => {
    const first = await createMedio();
    const second = await createMedio();
    const pdv = await createPdv(first.id);
    const res = await t.post(BASE, { medioId: second.id, numeroAFIP: pdv.numeroAFIP, nombre: 'x', domicilio: 'x' }, { token: admin });
    expect(res.status).toBe(201);
  });

  it('lets exactly one of 20 concurrent identical creates succeed; the others get 409 duplicado', async () => {
    const medio = await createMedio();
    const body = { medioId: medio.id, numeroAFIP: 777, nombre: 'carrera', domicilio: 'x' };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, body, { token: admin })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 409, 'duplicado');
    expect(await t.query('SELECT id FROM puntos_de_venta WHERE medio_id = $1 AND numero_afip = $2', [medio.id, 777])).toHaveLength(1);
  });

  it('answers 404 no_encontrado for a point of sale that does not exist, on get, update, deactivate and reactivate', async () => {
    expectProblem(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.put(`${BASE}/999999`, { numeroAFIP: 1, nombre: 'x', domicilio: 'x' }, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
  });

  it('lists points of sale paged, filtered by medioId and activo, ordered by numeroAFIP', async () => {
    const medio = await createMedio();
    const c = await createPdv(medio.id, { numeroAFIP: 30 });
    const a = await createPdv(medio.id, { numeroAFIP: 10 });
    const b = await createPdv(medio.id, { numeroAFIP: 20 });
    await t.post(`${BASE}/${c.id}/deactivate`, undefined, { token: admin });

    const page1 = await t.get(BASE, { token: admin, query: { medioId: medio.id, pageSize: 2 } });
    expect(page1.status).toBe(200);
    expect(page1.body).toEqual({
      items: [expect.objectContaining({ id: a.id }), expect.objectContaining({ id: b.id })],
      total: 3,
      page: 1,
      pageSize: 2,
    });
    const page2 = await t.get(BASE, { token: admin, query: { medioId: medio.id, pageSize: 2, page: 2 } });
    expect(page2.body).toEqual({ items: [expect.objectContaining({ id: c.id, activo: false })], total: 3, page: 2, pageSize: 2 });

    const active = await t.get(BASE, { token: admin, query: { medioId: medio.id, activo: true } });
    expect(active.body.items.map((p: any) => p.id)).toEqual([a.id, b.id]);
    expect(active.body).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    const inactive = await t.get(BASE, { token: admin, query: { medioId: medio.id, activo: false } });
    expect(inactive.body.items.map((p: any) => p.id)).toEqual([c.id]);
  });

  it('rejects an out-of-range page or pageSize with 400 validacion', async () => {
    for (const query of [{ pageSize: 101 }, { pageSize: 0 }, { page: 0 }, { page: 'x' }]) {
      expectProblem(await t.get(BASE, { token: admin, query }), 400, 'validacion');
    }
  });

  it('reads integers of the query as a path id is read: a leading zero is 400, as in /medios/07', async () => {
    const medio = await createMedio();
    for (const query of [{ page: '01' }, { pageSize: '020' }, { medioId: `0${medio.id}` }, { medioId: '-0' }]) {
      expectProblem(await t.get(BASE, { token: admin, query }), 400, 'validacion');
    }
    expectProblem(await t.get(`/api/v1/admin/medios/0${medio.id}`, { token: admin }), 400, 'validacion');
    expect((await t.get(BASE, { token: admin, query: { medioId: String(medio.id), page: '1', pageSize: '20' } })).status).toBe(200);
  });

  it('lists the points of sale of a medio as an array ordered by numeroAFIP, inactive ones included', async () => {
    const medio = await createMedio();
    const other = await createMedio();
    const b = await createPdv(medio.id, { numeroAFIP: 2 });
    const a = await createPdv(medio.id, { numeroAFIP: 1 });
    await createPdv(other.id, { numeroAFIP: 1 });
    await t.post(`${BASE}/${b.id}/deactivate`, undefined, { token: admin });
    const res = await t.get(`${MEDIOS}/${medio.id}/puntos-de-venta`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => p.id)).toEqual([a.id, b.id]);
    // filtered like the other lists; an unknown parameter is refused, never ignored
    const ids = async (query: Record<string, string>) =>
      (await t.get(`${MEDIOS}/${medio.id}/puntos-de-venta`, { token: admin, query })).body.map((p: any) => p.id);
    expect(await ids({ activo: 'true' })).toEqual([a.id]);
    expect(await ids({ activo: 'false' })).toEqual([b.id]);
    expectProblem(await t.get(`${MEDIOS}/${medio.id}/puntos-de-venta`, { token: admin, query: { activo: 'si' } }), 400, 'validacion');
    expectProblem(await t.get(`${MEDIOS}/${medio.id}/puntos-de-venta`, { token: admin, query: { numeroAFIP: '1' } }), 400, 'validacion');
  });

  it('answers 404 no_encontrado for the points of sale of a medio that does not exist', async () => {
    expectProblem(await t.get(`${MEDIOS}/999999/puntos-de-venta`, { token: admin }), 404, 'no_encontrado');
  });

  it('looks a point of sale up by medioId and numeroAFIP, without the path being taken for an id', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id, { numeroAFIP: 555 });
    const res = await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: medio.id, numeroAFIP: 555 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(pdv);
    // the lookup's ETag is the point of sale's own: a change can carry it as If-Match
    const byId = await t.get(`${BASE}/${pdv.id}`, { token: admin });
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.headers.etag).toBe(byId.headers.etag);
    const changed = await t.put(
      `${BASE}/${pdv.id}`,
      { numeroAFIP: 555, nombre: 'Renombrado', domicilio: 'Otra calle' },
      { token: admin, headers: { 'if-match': String(res.headers.etag) } },
    );
    expect(changed.status).toBe(200);
    const again = await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: medio.id, numeroAFIP: 555 } });
    expect(again.headers.etag).toBe(changed.headers.etag);
    expect(again.headers.etag).not.toBe(res.headers.etag);
  });

  it('answers 404 no_encontrado for a lookup that matches nothing', async () => {
    const medio = await createMedio();
    await createPdv(medio.id, { numeroAFIP: 556 });
    expectProblem(await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: medio.id, numeroAFIP: 557 } }), 404, 'no_encontrado');
    expectProblem(await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: 999999, numeroAFIP: 556 } }), 404, 'no_encontrado');
  });

  it('answers 400 validacion for a lookup without medioId or numeroAFIP or with a bad value', async () => {
    const medio = await createMedio();
    expectProblem(await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: medio.id } }), 400, 'validacion');
    expectProblem(await t.get(`${BASE}/lookup`, { token: admin, query: { numeroAFIP: 1 } }), 400, 'validacion');
    expectProblem(await t.get(`${BASE}/lookup`, { token: admin, query: { medioId: medio.id, numeroAFIP: 100000 } }), 400, 'validacion');
  });

  it('updates numeroAFIP, nombre and domicilio and audits punto_de_venta.update with {before, after}', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id, { numeroAFIP: 40, nombre: 'Antes', domicilio: 'Calle vieja' });
    const res = await t.put(`${BASE}/${pdv.id}`, { numeroAFIP: 41, nombre: 'Después', domicilio: 'Calle nueva' }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pdv.id, medioId: medio.id, numeroAFIP: 41, nombre: 'Después', domicilio: 'Calle nueva' });
    expect((await t.get(`${BASE}/${pdv.id}`, { token: admin })).body).toMatchObject({ numeroAFIP: 41, nombre: 'Después' });
    const [event] = await t.auditEvents({ action: 'punto_de_venta.update', targetId: String(pdv.id) });
    expect(event).toMatchObject({ target_type: 'punto_de_venta', actor_user_id: adminId });
    expect(event.metadata).toEqual({
      before: { numeroAFIP: 40, nombre: 'Antes', domicilio: 'Calle vieja' },
      after: { numeroAFIP: 41, nombre: 'Después', domicilio: 'Calle nueva' },
    });
  });

  it('rejects an update to a numeroAFIP taken in the medio with 409 duplicado', async () => {
    const medio = await createMedio();
    const taken = await createPdv(medio.id);
    const pdv = await createPdv(medio.id);
    expectProblem(
      await t.put(`${BASE}/${pdv.id}`, { numeroAFIP: taken.numeroAFIP, nombre: 'x', domicilio: 'x' }, { token: admin }),
      409,
      'duplicado',
    );
    // keeping its own number is no clash
    expect((await t.put(`${BASE}/${pdv.id}`, { numeroAFIP: pdv.numeroAFIP, nombre: 'x', domicilio: 'x' }, { token: admin })).status).toBe(200);
  });

  it('answers 409 medio_inactivo when reactivating a point of sale whose medio is inactive, and lets one be deactivated there', async () => {
    const medio = await createMedio();
    const inactive = await createPdv(medio.id);
    const active = await createPdv(medio.id);
    await t.post(`${BASE}/${inactive.id}/deactivate`, undefined, { token: admin });
    await deactivateMedio(medio.id);
    expectProblem(await t.post(`${BASE}/${inactive.id}/reactivate`, undefined, { token: admin }), 409, 'medio_inactivo');
    expect((await t.get(`${BASE}/${inactive.id}`, { token: admin })).body.activo).toBe(false);
    expect((await t.post(`${BASE}/${active.id}/deactivate`, undefined, { token: admin })).body.activo).toBe(false);
    // a repeat of a reactivation that is already done changes nothing and checks nothing
    await t.post(`/api/v1/admin/medios/${medio.id}/reactivate`, undefined, { token: admin });
    expect((await t.post(`${BASE}/${inactive.id}/reactivate`, undefined, { token: admin })).body.activo).toBe(true);
  });

  it('answers 409 medio_inactivo when updating a point of sale whose medio is inactive', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id, { nombre: 'Original' });
    await deactivateMedio(medio.id);
    expectProblem(
      await t.put(`${BASE}/${pdv.id}`, { numeroAFIP: pdv.numeroAFIP, nombre: 'Nuevo', domicilio: 'x' }, { token: admin }),
      409,
      'medio_inactivo',
    );
    expect((await t.get(`${BASE}/${pdv.id}`, { token: admin })).body.nombre).toBe('Original');
  });

  it('answers a PUT repeating the values of a point of sale under an inactive medio with the point of sale as it is', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id, { nombre: 'Original' });
    await deactivateMedio(medio.id);
    const before = await t.get(`${BASE}/${pdv.id}`, { token: admin });
    const body = { numeroAFIP: pdv.numeroAFIP, nombre: 'Original', domicilio: before.body.domicilio };
    const put = await t.put(`${BASE}/${pdv.id}`, body, { token: admin, headers: { 'if-match': String(before.headers.etag) } });
    expect(put.status).toBe(200);
    expect(put.headers.etag).toBe(before.headers.etag);
    expect(put.body).toEqual(before.body);
    expect(await t.auditEvents({ action: 'punto_de_venta.update', targetId: String(pdv.id) })).toHaveLength(0);
  });

  it('allows updating an inactive point of sale of an active medio', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id);
    await t.post(`${BASE}/${pdv.id}/deactivate`, undefined, { token: admin });
    const res = await t.put(`${BASE}/${pdv.id}`, { numeroAFIP: pdv.numeroAFIP, nombre: 'Renombrado', domicilio: 'x' }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ nombre: 'Renombrado', activo: false });
  });

  it('rejects an update body carrying medioId with 400 campo_inmutable', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id);
    expectProblem(
      await t.put(`${BASE}/${pdv.id}`, { medioId: medio.id, numeroAFIP: pdv.numeroAFIP, nombre: 'x', domicilio: 'x' }, { token: admin }),
      400,
      'campo_inmutable',
    );
  });

  itSwitchesActivationIdempotently('punto de venta', () => ({
    t,
    token: admin,
    actorId: adminId,
    url: (id) => `${BASE}/${id}`,
    create: async () => createPdv((await createMedio()).id),
    targetType: 'punto_de_venta',
    keeps: ['numeroAFIP', 'medioId'],
  }));

  it('offers no number reservation or next-number operation', async () => {
    const medio = await createMedio();
    const pdv = await createPdv(medio.id);
    expectProblem(await t.post(`${BASE}/${pdv.id}/reserve`, undefined, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.get(`${BASE}/${pdv.id}/next-number`, { token: admin }), 404, 'no_encontrado');
  });
});
