import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';
import { expectFiscalError } from './fiscal-support.js';
import { itSwitchesActivationIdempotently } from '../support/activation.js';
import { created, createdResource, expectCreateAudited, expectCreatedAt } from '../support/resources.js';

const BASE = '/api/v1/admin/fiscal/tipos-iva';

describe('fiscal: tipos de IVA', () => {
  let t: TestApp, admin: string, adminId: number;
  let nextCodigo = 100;
  const codigo = () => ++nextCodigo;

  beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()));
  afterAll(() => t.close());

  const createTipo = (fields: Partial<{ codigo: number; descripcion: string; porcentaje: number }> = {}) =>
    created(t.post(BASE, { codigo: codigo(), descripcion: 'IVA 21%', porcentaje: 21, ...fields }, { token: admin }));

  /** POST/PUT with the body text exactly as written (numbers like 1e999 cannot go through JSON.stringify). */
  const send = (method: 'POST' | 'PUT', url: string, raw: string) => t.request(method, url, { token: admin, raw });

  it('serves contable, which holds administracion:fiscal:gestionar', async () => {
    const contable = await t.createUser('contable');
    const res = await t.post(BASE, { codigo: codigo(), descripcion: 'Exento', porcentaje: 0 }, { token: contable.token });
    expect(res.status).toBe(201);
    expect((await t.get(BASE, { token: contable.token })).status).toBe(200);
  });

  it('creates a tipo de IVA with 201, the resource and a Location that resolves to it', async () => {
    const c = codigo();
    const fields = { codigo: c, descripcion: 'IVA 10,5%', porcentaje: 10.5 };
    await expectCreatedAt(t, await t.post(BASE, fields, { token: admin }), BASE, createdResource(fields), admin);
  });

  it('audits tipo_iva.create with the actor and {after}', async () => {
    const tipo = await createTipo({ descripcion: 'IVA 27%', porcentaje: 27 });
    await expectCreateAudited(t, 'tipo_iva', tipo.id, adminId, { codigo: tipo.codigo, descripcion: 'IVA 27%', porcentaje: 27 });
  });

  it('stores porcentaje exactly as decimal(5,2) and returns it as a JSON number', async () => {
    for (const [text, value] of [
      ['99.99', 99.99],
      ['0.07', 0.07],
      ['21.10', 21.1],
      ['100', 100],
      ['0', 0],
    ] as const) {
      const res = await send('POST', BASE, `{"codigo": ${codigo()}, "descripcion": "exacto", "porcentaje": ${text}}`);
      expect(res.status).toBe(201);
      expect(res.text).toContain(`"porcentaje":${value}`);
      expect(res.body.porcentaje).toBe(value);
      const [row] = await t.query('SELECT porcentaje FROM tipos_iva WHERE id = $1', [res.body.id]);
      expect(Number(row.porcentaje)).toBe(value);
      expect((await t.get(`${BASE}/${res.body.id}`, { token: admin })).body.porcentaje).toBe(value);
    }
    const [column] = await t.query(
      `SELECT numeric_precision AS p, numeric_scale AS s FROM information_schema.columns WHERE table_name = 'tipos_iva' AND column_name = 'porcentaje'`,
    );
    expect([Number(column.p), Number(column.s)]).toEqual([5, 2]);
  });

  describe('porcentaje is checked on the raw body before binding', () => {
    const cases: Array<[label: string, json: string]> = [
      ['a numeric string "21"', '"21"'],
      ['a boolean', 'true'],
      ['null', 'null'],
      ['1e999 (Infinity once parsed)', '1e999'],
      ['three decimals 21.001', '21.001'],
      ['more digits than a double holds 21.000000000000001 (21 once parsed)', '21.000000000000001'],
      ['100.000000000000001 (100 once parsed)', '100.000000000000001'],
      ['a negative number', '-1'],
      ['more than 100', '100.01'],
      ['an object', '{"valor": 21}'],
      ['an array', '[21]'],
    ];

    it.each(cases)('rejects %s on create with 400 {error: validacion, message}', async (_label, json) => {
      const c = codigo();
      const res = await send('POST', BASE, `{"codigo": ${c}, "descripcion": "x", "porcentaje": ${json}}`);
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('porcentaje');
      expect(await t.query('SELECT id FROM tipos_iva WHERE codigo = $1', [c])).toHaveLength(0);
    });

    it('rejects porcentaje named twice, a string and then a number, with 400 {error: validacion, message}: the parser would keep the number the raw checks did not see', async () => {
      const c = codigo();
      const res = await send('POST', BASE, `{"codigo": ${c}, "descripcion": "x", "porcentaje": "21", "porcentaje": 21}`);
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('porcentaje');
      expect(await t.query('SELECT id FROM tipos_iva WHERE codigo = $1', [c])).toHaveLength(0);
    });

    it('rejects a missing porcentaje on create with 400 {error: validacion, message}', async () => {
      const res = await send('POST', BASE, `{"codigo": ${codigo()}, "descripcion": "x"}`);
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('porcentaje');
    });

    it.each(cases)('rejects %s on update with 400 {error: validacion, message} and changes nothing', async (_label, json) => {
      const tipo = await createTipo({ porcentaje: 21 });
      const res = await send('PUT', `${BASE}/${tipo.id}`, `{"descripcion": "cambiado", "porcentaje": ${json}}`);
      expectFiscalError(res, 400, 'validacion');
      expect((await t.get(`${BASE}/${tipo.id}`, { token: admin })).body).toMatchObject({ descripcion: tipo.descripcion, porcentaje: 21 });
    });

    it('rejects a missing porcentaje on update with 400 {error: validacion, message}', async () => {
      const tipo = await createTipo();
      expectFiscalError(await send('PUT', `${BASE}/${tipo.id}`, '{"descripcion": "x"}'), 400, 'validacion');
    });

    it('checks porcentaje before binding the body: a bad porcentaje is the only fault reported even beside an unknown property', async () => {
      const res = await send('POST', BASE, `{"codigo": "no-es-entero", "descripcion": "x", "porcentaje": "21", "extra": true}`);
      expectFiscalError(res, 400, 'validacion');
      expect(res.body.message).toContain('porcentaje');
      expect(res.body.message).not.toMatch(/extra|codigo/);
    });

    it('accepts 21.10 (two decimals written with a trailing zero)', async () => {
      const res = await send('POST', BASE, `{"codigo": ${codigo()}, "descripcion": "x", "porcentaje": 21.10}`);
      expect(res.status).toBe(201);
      expect(res.body.porcentaje).toBe(21.1);
    });

    it('rejects a body that is not a JSON object with 400 {error: validacion, message}', async () => {
      expectFiscalError(await send('POST', BASE, '[1, 2]'), 400, 'validacion');
      expectFiscalError(await send('POST', BASE, '21'), 400, 'validacion');
      expectFiscalError(await t.request('POST', BASE, { token: admin }), 400, 'validacion');
    });
  });

  it('answers malformed JSON with 400 {error: validacion, message}', async () => {
    expectFiscalError(await send('POST', BASE, '{"codigo": 1, "porcentaje": '), 400, 'validacion');
  });

  it('rejects a codigo that is not a positive integer with 400 {error: validacion, message}', async () => {
    for (const c of ['5', 0, -3, 2.5, null]) {
      expectFiscalError(await t.post(BASE, { codigo: c, descripcion: 'x', porcentaje: 21 }, { token: admin }), 400, 'validacion');
    }
  });

  it('rejects unknown properties and a missing descripcion with 400 {error: validacion, message}', async () => {
    expectFiscalError(await t.post(BASE, { codigo: codigo(), descripcion: 'x', porcentaje: 21, alicuota: 1 }, { token: admin }), 400, 'validacion');
    expectFiscalError(await t.post(BASE, { codigo: codigo(), porcentaje: 21 }, { token: admin }), 400, 'validacion');
  });

  it('rejects a duplicate codigo with 409 {error: duplicado, message}, also when the holder is inactive', async () => {
    const tipo = await createTipo();
    expectFiscalError(await t.post(BASE, { codigo: tipo.codigo, descripcion: 'otro', porcentaje: 5 }, { token: admin }), 409, 'duplicado');
    await t.post(`${BASE}/${tipo.id}/deactivate`, undefined, { token: admin });
    expectFiscalError(await t.post(BASE, { codigo: tipo.codigo, descripcion: 'otro', porcentaje: 5 }, { token: admin }), 409, 'duplicado');
  });

  it('lets exactly one of 20 concurrent identical creates succeed; the others get 409 {error: duplicado}', async () => {
    const body = { codigo: codigo(), descripcion: 'carrera', porcentaje: 21 };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.post(BASE, body, { token: admin })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expectFiscalError(r, 409, 'duplicado');
    expect(await t.query('SELECT id FROM tipos_iva WHERE codigo = $1', [body.codigo])).toHaveLength(1);
  });

  it('answers 404 {error: no_encontrado, message} for a tipo de IVA that does not exist, on every operation with an id', async () => {
    expectFiscalError(await t.get(`${BASE}/999999`, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.put(`${BASE}/999999`, { descripcion: 'x', porcentaje: 1 }, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.post(`${BASE}/999999/deactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.post(`${BASE}/999999/reactivate`, undefined, { token: admin }), 404, 'no_encontrado');
    // the same route reached through a %-escaped spelling of its path answers in the same shape
    const escaped = '/api/v1/admin/%66iscal/tipos-iva';
    expectFiscalError(await t.get(`${escaped}/999999`, { token: admin }), 404, 'no_encontrado');
    expectFiscalError(await t.get(`${escaped}/999999`), 401, 'no_autenticado');
    expectFiscalError(await t.post(escaped, { codigo: 77, descripcion: 'x', porcentaje: '21' }, { token: admin }), 400, 'validacion');
    // a malformed escape further on is refused before routing, in the shape of the route it spells
    expectFiscalError(await t.get(`${escaped}/%zz`, { token: admin }), 400, 'validacion');
    expectFiscalError(await t.get(`${BASE}/%zz`, { token: admin }), 400, 'validacion');
  });

  it('answers a bad path id with 400 {error: validacion, message}', async () => {
    expectFiscalError(await t.get(`${BASE}/abc`, { token: admin }), 400, 'validacion');
  });

  it('lists tipos de IVA as an array ordered by codigo, active and inactive alike, and filters by activo', async () => {
    const high = await createTipo({ codigo: 9000 });
    const low = await createTipo({ codigo: 8000 });
    await t.post(`${BASE}/${high.id}/deactivate`, undefined, { token: admin });
    const all = await t.get(BASE, { token: admin });
    expect(all.status).toBe(200);
    const codigos = all.body.map((x: any) => x.codigo);
    expect(codigos).toEqual([...codigos].sort((a: number, b: number) => a - b));
    expect(codigos).toEqual(expect.arrayContaining([8000, 9000]));
    const active = await t.get(BASE, { token: admin, query: { activo: true } });
    expect(active.body.map((x: any) => x.id)).toContain(low.id);
    expect(active.body.map((x: any) => x.id)).not.toContain(high.id);
  });

  it('updates descripcion and porcentaje and audits tipo_iva.update with {before, after}', async () => {
    const tipo = await createTipo({ descripcion: 'Antes', porcentaje: 21 });
    const res = await t.put(`${BASE}/${tipo.id}`, { descripcion: 'Después', porcentaje: 10.5 }, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: tipo.id, codigo: tipo.codigo, descripcion: 'Después', porcentaje: 10.5 });
    const [event] = await t.auditEvents({ action: 'tipo_iva.update', targetId: String(tipo.id) });
    expect(event).toMatchObject({ target_type: 'tipo_iva', actor_user_id: adminId });
    expect(event.metadata).toEqual({ before: { descripcion: 'Antes', porcentaje: 21 }, after: { descripcion: 'Después', porcentaje: 10.5 } });
  });

  it('rejects an update body carrying codigo with 400 {error: campo_inmutable, message}', async () => {
    const tipo = await createTipo();
    expectFiscalError(
      await t.put(`${BASE}/${tipo.id}`, { codigo: tipo.codigo, descripcion: 'x', porcentaje: 5 }, { token: admin }),
      400,
      'campo_inmutable',
    );
    expectFiscalError(await t.put(`${BASE}/${tipo.id}`, { codigo: 1, descripcion: 'x', porcentaje: 5 }, { token: admin }), 400, 'campo_inmutable');
    // whatever else is wrong with the body: the rate's own check on the raw body comes after
    for (const body of [{ codigo: 1 }, { codigo: 5, descripcion: 'x', porcentaje: 21.001 }, { codigo: null, descripcion: 'x', porcentaje: '21' }]) {
      expectFiscalError(await t.put(`${BASE}/${tipo.id}`, body, { token: admin }), 400, 'campo_inmutable');
    }
    expect((await t.get(`${BASE}/${tipo.id}`, { token: admin })).body.porcentaje).toBe(21);
  });

  itSwitchesActivationIdempotently('tipo de IVA', () => ({
    t,
    token: admin,
    actorId: adminId,
    url: (id) => `${BASE}/${id}`,
    create: () => createTipo(),
    targetType: 'tipo_iva',
    keeps: ['codigo', 'porcentaje'],
  }));

  it('answers an unknown fiscal route with 404 {error: no_encontrado, message}', async () => {
    expectFiscalError(await t.get('/api/v1/admin/fiscal/no-existe', { token: admin }), 404, 'no_encontrado');
  });
});
