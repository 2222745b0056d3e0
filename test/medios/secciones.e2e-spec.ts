import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectProblem, TestApp } from '../support/test-app.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { created, createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';
import { MEDIOS, deactivateMedioAs, newMedio, uniqueCode } from './medios-fixtures.js';

const BASE = '/api/v1/admin/secciones';
const code = () => uniqueCode('S');

describe('secciones', () => {
  let t: TestApp, admin: string, adminId: number;
  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const createMedio = () => newMedio(t, admin);

  const createSeccion = (medioId: number, fields: Partial<{ codigo: string; nombre: string; tipo: string }> = {}) =>
    created(t.post(BASE, { medioId, codigo: code(), nombre: 'Clasificados', tipo: 'clasificados', ...fields }, { token: admin }));

  const deactivateMedio = (id: number) => deactivateMedioAs(t, admin, id);

  it('creates a seccion with 201, the resource and a Location that resolves to it', async () => {
    const medio = await createMedio();
    const codigo = code();
    const fields = { medioId: medio.id, codigo, nombre: 'Fúnebres', tipo: 'funebres' };
    await expectCreatedAt(t, await t.post(BASE, fields, { token: admin }), BASE, createdResource(fields), admin);
  });

  it('audits seccion.create with the actor and {after}', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id, { nombre: 'Edictos', tipo: 'edictos' });
    await expectCreateAudited(t, 'seccion', seccion.id, adminId, { medioId: medio.id, codigo: seccion.codigo, nombre: 'Edictos', tipo: 'edictos' });
  });

  it('accepts every tipo of the allowed list', async () => {
    const medio = await createMedio();
    for (const tipo of ['clasificados', 'comercial', 'edictos', 'funebres', 'suplemento', 'digital']) {
      expect((await createSeccion(medio.id, { tipo })).tipo).toBe(tipo);
    }
  });

  it('rejects a tipo outside the allowed list with 400 validacion', async () => {
    const medio = await createMedio();
    for (const tipo of ['deportes', 'Clasificados', '', null]) {
      const res = await t.post(BASE, { medioId: medio.id, codigo: code(), nombre: 'x', tipo }, { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'tipo' })]));
    }
  });

  it('rejects a lowercase or over-long codigo with 400 validacion', async () => {
    const medio = await createMedio();
    expectProblem(await t.post(BASE, { medioId: medio.id, codigo: 'clasif', nombre: 'x', tipo: 'digital' }, { token: admin }), 400, 'validacion');
    expectProblem(
      await t.post(BASE, { medioId: medio.id, codigo: 'A'.repeat(21), nombre: 'x', tipo: 'digital' }, { token: admin }),
      400,
      'validacion',
    );
  });

  it('rejects a medioId that is not a positive integer with 400 validacion', async () => {
    for (const medioId of ['1', 0, -1, 1.5, null]) {
      expectProblem(await t.post(BASE, { medioId, codigo: code(), nombre: 'x', tipo: 'digital' }, { token: admin }), 400, 'validacion');
    }
  });

  it('answers 404 no_encontrado when creating a seccion under a medio that does not exist', async () => {
    expectProblem(await t.post(BASE, { medioId: 999999, codigo: code(), nombre: 'x', tipo: 'digital' }, { token: admin }), 404, 'no_encontrado');
  });

  it('answers 409 medio_inactivo when creating a seccion under an inactive medio', async () => {
    const medio = await createMedio();
    await deactivateMedio(medio.id);
    const codigo = code();
    expectProblem(await t.post(BASE, { medioId: medio.id, codigo, nombre: 'x', tipo: 'digital' }, { token: admin }), 409, 'medio_inactivo');
    expect(await t.query('SELECT id FROM secciones WHERE codigo = $1', [codigo])).toHaveLength(0);
  });

  it('rejects a codigo already used in the same medio with 409 duplicado, also by an inactive seccion', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id);
    expectProblem(
      await t.post(BASE, { medioId: medio.id, codigo: seccion.codigo, nombre: 'otra', tipo: 'digital' }, { token: admin }),
      409,
      'duplicado',
    );
    await t.post(`${BASE}/${seccion.id}/deactivate`, undefined, { token: admin });
    expectProblem(
      await t.post(BASE, { medioId: medio.id, codigo: seccion.codigo, nombre: 'otra', tipo: 'digital' }, { token: admin }),
      409,
      'duplicado',
    );
  });

  it('allows the same codigo in another medio', async () => {
    const first = await createMedio();
    const second = await createMedio();
    const seccion = await createSeccion(first.id);
    const res = await t.post(BASE, { medioId: second.id, codigo: seccion.codigo, nombre: 'Otra', tipo: 'digital' }, { token: admin });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ medioId: second.id, codigo: seccion.codigo });
  });

  it('lets exactly one of 20 concurrent identical creates succeed; the others get 409 duplicado', async () => {
    const medio = await createMedio();
    const body = { medioId: medio.id, codigo: code(), nombre: 'carrera', tipo: 'digital' };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, body, { token: admin })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 409, 'duplicado');
    expect(await t.query('SELECT id FROM secciones WHERE medio_id = $1 AND codigo = $2', [medio.id, body.codigo])).toHaveLength(1);
  });

  it('answers 404 no_encontrado for a seccion that does not exist, on get, update, deactivate and reactivate', async () => {
    expectProblem(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.put(`${BASE}/999999`, { nombre: 'x', tipo: 'digital' }, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
  });

  it('lists secciones as an array filtered by medioId and activo, ordered by codigo within a medio', async () => {
    const medio = await createMedio();
    const other = await createMedio();
    const stem = `ORD${process.pid}`;
    const b = await createSeccion(medio.id, { codigo: `${stem}B` });
    const a = await createSeccion(medio.id, { codigo: `${stem}A` });
    const elsewhere = await createSeccion(other.id);
    await t.post(`${BASE}/${b.id}/deactivate`, undefined, { token: admin });

    const ofMedio = await t.get(BASE, { token: admin, query: { medioId: medio.id } });
    expect(ofMedio.status).toBe(200);
    expect(ofMedio.body.map((s: any) => s.id)).toEqual([a.id, b.id]);

    const active = await t.get(BASE, { token: admin, query: { medioId: medio.id, activo: true } });
    expect(active.body.map((s: any) => s.id)).toEqual([a.id]);
    const inactive = await t.get(BASE, { token: admin, query: { medioId: medio.id, activo: false } });
    expect(inactive.body.map((s: any) => s.id)).toEqual([b.id]);

    const all = await t.get(BASE, { token: admin });
    expect(all.body.map((s: any) => s.id)).toEqual(expect.arrayContaining([a.id, b.id, elsewhere.id]));
    expectProblem(await t.get(BASE, { token: admin, query: { medioId: 'uno' } }), 400, 'validacion');
  });

  it('updates nombre and tipo and audits seccion.update with {before, after}', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id, { nombre: 'Antes', tipo: 'comercial' });
    const res = await t.put(`${BASE}/${seccion.id}`, { nombre: 'Después', tipo: 'suplemento' }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: seccion.id, medioId: medio.id, codigo: seccion.codigo, nombre: 'Después', tipo: 'suplemento' });
    expect((await t.get(`${BASE}/${seccion.id}`, { token: admin })).body).toMatchObject({ nombre: 'Después', tipo: 'suplemento' });
    const [event] = await t.auditEvents({ action: 'seccion.update', targetId: String(seccion.id) });
    expect(event).toMatchObject({ target_type: 'seccion', actor_user_id: adminId });
    expect(event.metadata).toEqual({ before: { nombre: 'Antes', tipo: 'comercial' }, after: { nombre: 'Después', tipo: 'suplemento' } });
  });

  it('rejects an update body carrying medioId or codigo with 400 campo_inmutable, whatever the value', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id, { nombre: 'Original' });
    for (const extra of [{ medioId: medio.id }, { medioId: 999 }, { codigo: seccion.codigo }, { codigo: 'OTRO' }]) {
      expectProblem(await t.put(`${BASE}/${seccion.id}`, { nombre: 'Nuevo', tipo: 'digital', ...extra }, { token: admin }), 400, 'campo_inmutable');
    }
    expect((await t.get(`${BASE}/${seccion.id}`, { token: admin })).body).toMatchObject({
      medioId: medio.id,
      codigo: seccion.codigo,
      nombre: 'Original',
    });
  });

  it('answers 409 medio_inactivo when updating a seccion whose medio is inactive', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id, { nombre: 'Original' });
    await deactivateMedio(medio.id);
    expectProblem(await t.put(`${BASE}/${seccion.id}`, { nombre: 'Nuevo', tipo: 'digital' }, { token: admin }), 409, 'medio_inactivo');
    expect((await t.get(`${BASE}/${seccion.id}`, { token: admin })).body.nombre).toBe('Original');
    expect(await t.auditEvents({ action: 'seccion.update', targetId: String(seccion.id) })).toHaveLength(0);
  });

  it('answers 409 medio_inactivo when deactivating a seccion whose medio is inactive', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id);
    await deactivateMedio(medio.id);
    expectProblem(await t.post(`${BASE}/${seccion.id}/deactivate`, undefined, { token: admin }), 409, 'medio_inactivo');
    expect((await t.get(`${BASE}/${seccion.id}`, { token: admin })).body.activo).toBe(true);
  });

  it('answers 409 medio_inactivo when reactivating a seccion whose medio is inactive', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id);
    await t.post(`${BASE}/${seccion.id}/deactivate`, undefined, { token: admin });
    await deactivateMedio(medio.id);
    expectProblem(await t.post(`${BASE}/${seccion.id}/reactivate`, undefined, { token: admin }), 409, 'medio_inactivo');
    expect((await t.get(`${BASE}/${seccion.id}`, { token: admin })).body.activo).toBe(false);
  });

  it('answers a repeat under an inactive medio with the seccion as it is: a PUT of its values, a deactivate or reactivate of the state it has', async () => {
    const medio = await createMedio();
    const active = await createSeccion(medio.id, { nombre: 'Activa' });
    const inactive = await createSeccion(medio.id);
    await t.post(`${BASE}/${inactive.id}/deactivate`, undefined, { token: admin });
    await deactivateMedio(medio.id);
    const before = await t.get(`${BASE}/${active.id}`, { token: admin });
    const put = await t.put(
      `${BASE}/${active.id}`,
      { nombre: 'Activa', tipo: before.body.tipo },
      { token: admin, headers: { 'if-match': String(before.headers.etag) } },
    );
    expect(put.status).toBe(200);
    expect(put.headers.etag).toBe(before.headers.etag);
    expect(put.body).toEqual(before.body);
    const reactivate = await t.post(`${BASE}/${active.id}/reactivate`, undefined, { token: admin });
    expect(reactivate.body.activo).toBe(true);
    expect(reactivate.headers.etag).toBe(before.headers.etag);
    const inactiveBefore = await t.get(`${BASE}/${inactive.id}`, { token: admin });
    const deactivate = await t.post(`${BASE}/${inactive.id}/deactivate`, undefined, { token: admin });
    expect(deactivate.body.activo).toBe(false);
    expect(deactivate.headers.etag).toBe(inactiveBefore.headers.etag);
    for (const id of [active.id, inactive.id]) {
      const events = await t.auditEvents({ targetType: 'seccion', targetId: String(id) });
      expect(events.map((e) => e.action).sort()).toEqual(id === inactive.id ? ['seccion.create', 'seccion.deactivate'] : ['seccion.create']);
    }
    // a repeat still checks the If-Match it carries
    expectProblem(
      await t.put(`${BASE}/${active.id}`, { nombre: 'Activa', tipo: before.body.tipo }, { token: admin, headers: { 'if-match': '"stale"' } }),
      412,
      'version_obsoleta',
    );
    // a real change is still refused
    expectProblem(await t.put(`${BASE}/${active.id}`, { nombre: 'Otra', tipo: before.body.tipo }, { token: admin }), 409, 'medio_inactivo');
  });

  itSwitchesActivationIdempotently('seccion', () => ({
    t,
    token: admin,
    actorId: adminId,
    url: (id) => `${BASE}/${id}`,
    create: async () => createSeccion((await createMedio()).id),
    targetType: 'seccion',
    keeps: ['codigo', 'medioId'],
  }));

  it('serves the secciones of a reactivated medio again for writes', async () => {
    const medio = await createMedio();
    const seccion = await createSeccion(medio.id);
    await deactivateMedio(medio.id);
    await t.post(`${MEDIOS}/${medio.id}/reactivate`, undefined, { token: admin });
    expect((await t.put(`${BASE}/${seccion.id}`, { nombre: 'Otra vez', tipo: 'digital' }, { token: admin })).status).toBe(200);
  });
});
