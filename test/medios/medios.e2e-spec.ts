import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectProblem, TestApp } from '../support/test-app.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { created, createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';

const BASE = '/api/v1/admin/medios';
let seq = 0;
const code = () => `MED_${process.pid}_${++seq}`;

describe('medios', () => {
  let t: TestApp, admin: string, adminId: number;
  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const createMedio = (nombre = 'Diario de prueba') => created(t.post(BASE, { codigo: code(), nombre }, { token: admin }));

  it('creates a medio with 201, the resource and a Location that resolves to it', async () => {
    const codigo = code();
    const res = await t.post(BASE, { codigo, nombre: 'Diario del Norte' }, { token: admin });
    await expectCreatedAt(t, res, BASE, createdResource({ codigo, nombre: 'Diario del Norte' }), admin);
  });

  it('audits medio.create with the actor and {after}', async () => {
    const medio = await createMedio('Radio Sur');
    await expectCreateAudited(t, 'medio', medio.id, adminId, { codigo: medio.codigo, nombre: 'Radio Sur' });
  });

  it.each([
    ['lowercase', 'diario'],
    ['mixed case', 'Diario'],
    ['longer than 20 characters', 'A'.repeat(21)],
    ['empty', ''],
    ['a hyphen', 'DIARIO-NORTE'],
    ['a space', 'DIARIO NORTE'],
    ['a number instead of a string', 12],
  ])('rejects a codigo that is %s with 400 validacion', async (_label, codigo) => {
    const res = await t.post(BASE, { codigo, nombre: 'x' }, { token: admin });
    expectProblem(res, 400, 'validacion');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'codigo' })]));
  });

  it('accepts a codigo of exactly 20 characters of [A-Z0-9_]', async () => {
    const codigo = `Z_${String(process.pid).padStart(8, '0')}_123456789`.slice(0, 20);
    expect(codigo).toHaveLength(20);
    expect((await t.post(BASE, { codigo, nombre: 'x' }, { token: admin })).status).toBe(201);
  });

  it('rejects a missing or blank nombre and unknown properties with 400 validacion', async () => {
    expectProblem(await t.post(BASE, { codigo: code() }, { token: admin }), 400, 'validacion');
    expectProblem(await t.post(BASE, { codigo: code(), nombre: '   ' }, { token: admin }), 400, 'validacion');
    expectProblem(await t.post(BASE, { codigo: code(), nombre: 'x', activo: false }, { token: admin }), 400, 'validacion');
  });

  it('rejects properties and query parameters named like members of every object (toString, constructor…) as unknown', async () => {
    for (const key of ['toString', 'hasOwnProperty', 'valueOf']) {
      const res = await t.post(BASE, { codigo: code(), nombre: 'x', [key]: 'x' }, { token: admin });
      expectProblem(res, 400, 'validacion');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: key, code: 'whitelistValidation' })]);
    }
    for (const key of ['constructor', 'toString', '__proto__']) {
      expectProblem(await t.get(`${BASE}?${key}=1`, { token: admin }), 400, 'validacion');
    }
    const medio = await createMedio();
    expectProblem(await t.put(`${BASE}/${medio.id}`, { nombre: 'y', valueOf: 1 }, { token: admin }), 400, 'validacion');
  });

  it('names an unknown property without echoing a megabyte of its name back, and one without a name in Spanish', async () => {
    const huge = 'k'.repeat(1_000_000);
    const res = await t.post(BASE, { codigo: code(), nombre: 'x', [huge]: 1 }, { token: admin });
    expectProblem(res, 400, 'validacion');
    expect(JSON.stringify(res.body).length).toBeLessThan(2_000);
    expect(res.body.errors).toEqual([
      { field: `${'k'.repeat(200)}…`, code: 'whitelistValidation', message: `${'k'.repeat(200)}… no es un campo admitido` },
    ]);
    const nameless = await t.post(BASE, { codigo: code(), nombre: 'x', '': 1 }, { token: admin });
    expect(nameless.body.errors).toEqual([{ field: '', code: 'whitelistValidation', message: 'un campo sin nombre no es admitido' }]);
  });

  it('rejects a duplicate codigo with 409 duplicado, also when the holder is inactive', async () => {
    const medio = await createMedio();
    expectProblem(await t.post(BASE, { codigo: medio.codigo, nombre: 'otro' }, { token: admin }), 409, 'duplicado');
    await t.post(`${BASE}/${medio.id}/deactivate`, undefined, { token: admin });
    expectProblem(await t.post(BASE, { codigo: medio.codigo, nombre: 'otro' }, { token: admin }), 409, 'duplicado');
  });

  it('lets exactly one of 20 concurrent identical creates succeed; the others get 409 duplicado', async () => {
    const codigo = code();
    const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, { codigo, nombre: 'carrera' }, { token: admin })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 409, 'duplicado');
    expect(await t.query('SELECT id FROM medios WHERE codigo = $1', [codigo])).toHaveLength(1);
    expect(await t.auditEvents({ action: 'medio.create', targetId: String(results.find((r) => r.status === 201)!.body.id) })).toHaveLength(1);
  });

  it('answers 404 no_encontrado for a medio that does not exist, on get, update, deactivate and reactivate', async () => {
    expectProblem(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.put(`${BASE}/999999`, { nombre: 'x' }, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    expectProblem(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
  });

  it('answers 400 validacion for a path id that is not a positive integer', async () => {
    expectProblem(await t.get(`${BASE}/abc`, { token: admin }), 400, 'validacion');
    expectProblem(await t.get(`${BASE}/0`, { token: admin }), 400, 'validacion');
  });

  it('lists medios as an array ordered by codigo, active and inactive alike, and filters by activo', async () => {
    // created out of order; codes differ only in their last letter, so any collation orders them alike
    const stem = `ORD${process.pid}`;
    const b = (await t.post(BASE, { codigo: `${stem}B`, nombre: 'b' }, { token: admin })).body;
    const a = (await t.post(BASE, { codigo: `${stem}A`, nombre: 'a' }, { token: admin })).body;
    await t.post(`${BASE}/${b.id}/deactivate`, undefined, { token: admin });

    const all = await t.get(BASE, { token: admin });
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    const ids = all.body.map((m: any) => m.id);
    expect(ids).toContain(a.id);
    expect(ids).toContain(b.id);
    expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));

    const active = await t.get(BASE, { token: admin, query: { activo: true } });
    expect(active.body.every((m: any) => m.activo === true)).toBe(true);
    expect(active.body.map((m: any) => m.id)).toContain(a.id);
    expect(active.body.map((m: any) => m.id)).not.toContain(b.id);

    const inactive = await t.get(BASE, { token: admin, query: { activo: false } });
    expect(inactive.body.every((m: any) => m.activo === false)).toBe(true);
    expect(inactive.body.map((m: any) => m.id)).toContain(b.id);

    expectProblem(await t.get(BASE, { token: admin, query: { activo: 'yes' } }), 400, 'validacion');
  });

  it('updates the nombre and audits medio.update with {before, after}', async () => {
    const medio = await createMedio('Antes');
    const res = await t.put(`${BASE}/${medio.id}`, { nombre: 'Después' }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: medio.id, codigo: medio.codigo, nombre: 'Después', activo: true });
    expect((await t.get(`${BASE}/${medio.id}`, { token: admin })).body.nombre).toBe('Después');
    const [event] = await t.auditEvents({ action: 'medio.update', targetId: String(medio.id) });
    expect(event).toMatchObject({ target_type: 'medio', actor_user_id: adminId });
    expect(event.metadata).toEqual({ before: { nombre: 'Antes' }, after: { nombre: 'Después' } });
  });

  it('rejects an update body carrying codigo with 400 campo_inmutable, even with the same value, and changes nothing', async () => {
    const medio = await createMedio('Original');
    expectProblem(await t.put(`${BASE}/${medio.id}`, { nombre: 'Nuevo', codigo: medio.codigo }, { token: admin }), 400, 'campo_inmutable');
    expectProblem(await t.put(`${BASE}/${medio.id}`, { nombre: 'Nuevo', codigo: 'OTRO' }, { token: admin }), 400, 'campo_inmutable');
    expectProblem(await t.put(`${BASE}/${medio.id}`, { nombre: 'Nuevo', codigo: null }, { token: admin }), 400, 'campo_inmutable');
    expect((await t.get(`${BASE}/${medio.id}`, { token: admin })).body).toMatchObject({ codigo: medio.codigo, nombre: 'Original' });
    expect(await t.auditEvents({ action: 'medio.update', targetId: String(medio.id) })).toHaveLength(0);
  });

  itSwitchesActivationIdempotently('medio', () => ({
    t,
    token: admin,
    actorId: adminId,
    url: (id) => `${BASE}/${id}`,
    create: createMedio,
    targetType: 'medio',
    keeps: ['codigo', 'nombre'],
  }));
});
