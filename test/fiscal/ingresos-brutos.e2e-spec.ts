import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';
import { expectFiscalError } from './fiscal-support.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { created, createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';

const BASE = '/api/v1/admin/fiscal/ingresos-brutos';
const PROVINCIAS = '/api/v1/admin/fiscal/provincias';

const CODES = [
  'BUENOS_AIRES',
  'CABA',
  'CATAMARCA',
  'CHACO',
  'CHUBUT',
  'CORDOBA',
  'CORRIENTES',
  'ENTRE_RIOS',
  'FORMOSA',
  'JUJUY',
  'LA_PAMPA',
  'LA_RIOJA',
  'MENDOZA',
  'MISIONES',
  'NEUQUEN',
  'RIO_NEGRO',
  'SALTA',
  'SAN_JUAN',
  'SAN_LUIS',
  'SANTA_CRUZ',
  'SANTA_FE',
  'SANTIAGO_DEL_ESTERO',
  'TIERRA_DEL_FUEGO',
  'TUCUMAN',
];

describe('fiscal: ingresos brutos and provincias', () => {
  let t: TestApp, admin: string, adminId: number;
  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  /** Each test owns its provincias, since the rule "one active entry per provincia" spans the file's database. */
  const createEntry = (provincia: string, fields: Partial<{ descripcion: string; alicuota: number }> = {}) =>
    created(t.post(BASE, { provincia, descripcion: `IIBB ${provincia}`, alicuota: 3.5, ...fields }, { token: admin }));

  const send = (method: 'POST' | 'PUT', url: string, raw: string) => t.request(method, url, { token: admin, raw });

  describe('provincias', () => {
    it('lists the 24 jurisdictions as [{codigo, nombre}]', async () => {
      const res = await t.get(PROVINCIAS, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(24);
      expect(res.body.map((p: any) => p.codigo)).toEqual(CODES);
      for (const p of res.body) expect(p).toEqual({ codigo: expect.any(String), nombre: expect.any(String) });
      expect(res.body.find((p: any) => p.codigo === 'CORDOBA').nombre).toBe('Córdoba');
    });
  });

  it('creates an entry with 201, the resource and a Location that resolves to it', async () => {
    const fields = { provincia: 'CATAMARCA', descripcion: 'Actividad general', alicuota: 1.2345 };
    await expectCreatedAt(t, await t.post(BASE, fields, { token: admin }), BASE, createdResource(fields), admin);
  });

  it('audits ingresos_brutos.create with the actor and {after}', async () => {
    const entry = await createEntry('CHACO', { descripcion: 'Chaco general', alicuota: 2.5 });
    await expectCreateAudited(t, 'ingresos_brutos', entry.id, adminId, { provincia: 'CHACO', descripcion: 'Chaco general', alicuota: 2.5 });
  });

  it('stores alicuota exactly as decimal(7,4) and returns it as a JSON number', async () => {
    const provincias = ['CHUBUT', 'CORDOBA', 'CORRIENTES', 'ENTRE_RIOS'];
    const values = [99.9999, 0.0001, 3.5, 100];
    for (const [i, value] of values.entries()) {
      const res = await send('POST', BASE, `{"provincia": "${provincias[i]}", "descripcion": "exacto", "alicuota": ${value}}`);
      expect(res.status).toBe(201);
      expect(res.text).toContain(`"alicuota":${value}`);
      const [row] = await t.query('SELECT alicuota FROM ingresos_brutos WHERE id = $1', [res.body.id]);
      expect(Number(row.alicuota)).toBe(value);
      expect((await t.get(`${BASE}/${res.body.id}`, { token: admin })).body.alicuota).toBe(value);
    }
    const [column] = await t.query(
      `SELECT numeric_precision AS p, numeric_scale AS s FROM information_schema.columns WHERE table_name = 'ingresos_brutos' AND column_name = 'alicuota'`,
    );
    expect([Number(column.p), Number(column.s)]).toEqual([7, 4]);
  });

  describe('alicuota is checked on the raw body before binding', () => {
    const cases: Array<[label: string, json: string]> = [
      ['a numeric string "3.5"', '"3.5"'],
      ['a boolean', 'false'],
      ['null', 'null'],
      ['1e999 (Infinity once parsed)', '1e999'],
      ['five decimals 3.12345', '3.12345'],
      ['99.999999999999999 (100 once parsed)', '99.999999999999999'],
      ['3.50000000000000001 (3.5 once parsed)', '3.50000000000000001'],
      ['a negative number', '-0.0001'],
      ['more than 100', '100.0001'],
    ];

    it.each(cases)('rejects %s on create with 400 {error: validacion, message}', async (_label, json) => {
      const res = await send('POST', BASE, `{"provincia": "FORMOSA", "descripcion": "x", "alicuota": ${json}}`);
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('alicuota');
      expect(await t.query(`SELECT id FROM ingresos_brutos WHERE provincia = 'FORMOSA'`)).toHaveLength(0);
    });

    it('rejects a missing alicuota on create with 400 {error: validacion, message}', async () => {
      const res = await send('POST', BASE, '{"provincia": "FORMOSA", "descripcion": "x"}');
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('alicuota');
    });

    it.each(cases)('rejects %s on update with 400 {error: validacion, message} and changes nothing', async (_label, json) => {
      const entry =
        (await t.get(BASE, { token: admin })).body.find((e: any) => e.provincia === 'JUJUY') ?? (await createEntry('JUJUY', { alicuota: 3.5 }));
      const res = await send('PUT', `${BASE}/${entry.id}`, `{"provincia": "JUJUY", "descripcion": "cambiado", "alicuota": ${json}}`);
      expectFiscalError(res, 400, 'validacion');
      expect((await t.get(`${BASE}/${entry.id}`, { token: admin })).body).toMatchObject({ descripcion: entry.descripcion, alicuota: 3.5 });
    });

    it('accepts four decimals with a trailing zero (3.1230)', async () => {
      const res = await send('POST', BASE, '{"provincia": "LA_PAMPA", "descripcion": "x", "alicuota": 3.1230}');
      expect(res.status).toBe(201);
      expect(res.body.alicuota).toBe(3.123);
    });
  });

  it('rejects a provincia outside the 24 codes with 400 {error: validacion, message}', async () => {
    for (const provincia of ['salta', 'PATAGONIA', '', null, 17]) {
      expectFiscalError(await t.post(BASE, { provincia, descripcion: 'x', alicuota: 1 }, { token: admin }), 400, 'validacion');
    }
  });

  it('rejects unknown properties with 400 {error: validacion, message}', async () => {
    expectFiscalError(
      await t.post(BASE, { provincia: 'LA_RIOJA', descripcion: 'x', alicuota: 1, porcentaje: 1 }, { token: admin }),
      400,
      'validacion',
    );
  });

  it('rejects a second active entry for a provincia with 409 {error: duplicado, message}', async () => {
    await createEntry('MENDOZA');
    expectFiscalError(await t.post(BASE, { provincia: 'MENDOZA', descripcion: 'otra', alicuota: 2 }, { token: admin }), 409, 'duplicado');
  });

  it('allows a new active entry once the previous one of the provincia is inactive', async () => {
    const old = await createEntry('MISIONES');
    await t.post(`${BASE}/${old.id}/deactivate`, undefined, { token: admin });
    const res = await t.post(BASE, { provincia: 'MISIONES', descripcion: 'nueva', alicuota: 4 }, { token: admin });
    expect(res.status).toBe(201);
  });

  it('rejects reactivating an entry while another entry of its provincia is active with 409 {error: duplicado, message}', async () => {
    const old = await createEntry('NEUQUEN');
    await t.post(`${BASE}/${old.id}/deactivate`, undefined, { token: admin });
    await createEntry('NEUQUEN', { alicuota: 4 });
    expectFiscalError(await t.post(`${BASE}/${old.id}/reactivate`, undefined, { token: admin }), 409, 'duplicado');
    expect((await t.get(`${BASE}/${old.id}`, { token: admin })).body.activo).toBe(false);
    expect(await t.auditEvents({ action: 'ingresos_brutos.reactivate', targetId: String(old.id) })).toHaveLength(0);
  });

  it('lets exactly one of 20 concurrent creates for one provincia succeed; the others get 409 {error: duplicado}', async () => {
    const body = { provincia: 'RIO_NEGRO', descripcion: 'carrera', alicuota: 3 };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, body, { token: admin })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectFiscalError(r, 409, 'duplicado');
    expect(await t.query(`SELECT id FROM ingresos_brutos WHERE provincia = 'RIO_NEGRO'`)).toHaveLength(1);
  });

  it('answers 404 {error: no_encontrado, message} for an entry that does not exist, on every operation with an id', async () => {
    expectFiscalError(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.put(`${BASE}/999999`, { provincia: 'SALTA', descripcion: 'x', alicuota: 1 }, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
  });

  it('lists entries as an array ordered by provincia, active and inactive alike, and filters by activo', async () => {
    const tucuman = await createEntry('TUCUMAN');
    const salta = await createEntry('SALTA');
    await t.post(`${BASE}/${tucuman.id}/deactivate`, undefined, { token: admin });
    const all = await t.get(BASE, { token: admin });
    expect(all.status).toBe(200);
    const ids = all.body.map((e: any) => e.id);
    expect(ids.indexOf(salta.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(salta.id)).toBeLessThan(ids.indexOf(tucuman.id));
    // plain alphabetic codes compare alike under every collation
    const alphabetic = all.body.map((e: any) => e.provincia).filter((p: string) => /^[A-Z]+$/.test(p));
    expect(alphabetic).toEqual([...alphabetic].sort());
    const active = await t.get(BASE, { token: admin, query: { activo: true } });
    expect(active.body.every((e: any) => e.activo)).toBe(true);
    expect(active.body.map((e: any) => e.id)).not.toContain(tucuman.id);
  });

  it('updates provincia, descripcion and alicuota and audits ingresos_brutos.update with {before, after}', async () => {
    const entry = await createEntry('SAN_JUAN', { descripcion: 'Antes', alicuota: 3.5 });
    const res = await t.put(`${BASE}/${entry.id}`, { provincia: 'SAN_LUIS', descripcion: 'Después', alicuota: 4.75 }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: entry.id, provincia: 'SAN_LUIS', descripcion: 'Después', alicuota: 4.75 });
    const [event] = await t.auditEvents({ action: 'ingresos_brutos.update', targetId: String(entry.id) });
    expect(event).toMatchObject({ target_type: 'ingresos_brutos', actor_user_id: adminId });
    expect(event.metadata).toEqual({
      before: { provincia: 'SAN_JUAN', descripcion: 'Antes', alicuota: 3.5 },
      after: { provincia: 'SAN_LUIS', descripcion: 'Después', alicuota: 4.75 },
    });
  });

  it('rejects moving an active entry to a provincia with another active entry with 409 {error: duplicado}; an inactive entry may move there', async () => {
    await createEntry('SANTA_CRUZ');
    const moving = await createEntry('SANTA_FE');
    expectFiscalError(
      await t.put(`${BASE}/${moving.id}`, { provincia: 'SANTA_CRUZ', descripcion: 'x', alicuota: 1 }, { token: admin }),
      409,
      'duplicado',
    );
    await t.post(`${BASE}/${moving.id}/deactivate`, undefined, { token: admin });
    const res = await t.put(`${BASE}/${moving.id}`, { provincia: 'SANTA_CRUZ', descripcion: 'x', alicuota: 1 }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provincia: 'SANTA_CRUZ', activo: false });
  });

  // one provincia per test: a provincia holds one active entry at a time
  const activationProvincias = ['SANTIAGO_DEL_ESTERO', 'TIERRA_DEL_FUEGO', 'BUENOS_AIRES'];
  itSwitchesActivationIdempotently('ingresos brutos entry', () => ({
    t,
    token: admin,
    actorId: adminId,
    url: (id) => `${BASE}/${id}`,
    create: () => createEntry(activationProvincias.shift()!),
    targetType: 'ingresos_brutos',
    keeps: ['provincia', 'alicuota'],
  }));
});
