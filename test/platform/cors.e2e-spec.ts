import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TestApp } from '../support/test-app.js';

/**
 * The admin console runs on another origin (docs/frontend.md): with CORS_ORIGINS set, a browser
 * page from a listed origin may run every operation — PUT and DELETE included, with If-Match — and
 * read the headers a console needs; any other origin gets no CORS header at all. Fetch wrappers
 * that always send `Content-Type: application/json` can call the bodiless operations.
 */
const CONSOLE = 'https://console.example.test';
const EVIL = 'https://evil.example.test';

const preflight = (t: TestApp, url: string, origin: string, method: string, headers = 'authorization,content-type,if-match,x-correlation-id') =>
  t.request('OPTIONS', url, { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((h) => h.startsWith('access-control-'));

describe('CORS for the admin console', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin({ env: { CORS_ORIGINS: `${CONSOLE}, https://other-console.example.test` } })));
  afterAll(() => t?.close());

  it.each(['GET', 'POST', 'PUT', 'DELETE'])(
    'answers a preflight for %s from a listed origin with 204 and every method and header the console sends',
    async (method) => {
      const res = await preflight(t, '/api/v1/roles/cajero', CONSOLE, method);
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
      const methods = String(res.headers['access-control-allow-methods']).split(/\s*,\s*/);
      expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']));
      const allowed = String(res.headers['access-control-allow-headers'])
        .toLowerCase()
        .split(/\s*,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'if-match', 'x-correlation-id']));
    },
  );

  it("gives a preflight answer the service's own headers: X-Correlation-Id, no-store, the security headers", async () => {
    const res = await preflight(t, '/api/v1/admin/medios/1', CONSOLE, 'PUT');
    expect(res.status).toBe(204);
    expect(res.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers an OPTIONS request without Access-Control-Request-Method like a preflight, not with a plain-text error', async () => {
    const res = await t.request('OPTIONS', '/api/v1/admin/rubros/tree', { headers: { origin: CONSOLE } });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(res.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).toBe('');
  });

  it('exposes ETag, Location, X-Correlation-Id and Retry-After to the page on actual answers', async () => {
    const res = await t.get('/api/v1/roles/cajero', { token: admin, headers: { origin: CONSOLE } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    const exposed = String(res.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['etag', 'location', 'x-correlation-id', 'retry-after']));
    expect(res.headers.etag).toBeDefined();
  });

  it('gives the CORS headers to an error fastify answers before routing (a bad %-escape), for a listed origin only', async () => {
    const res = await t.get('/api/v1/roles/%E0%A4%A', { headers: { origin: CONSOLE } });
    expect(res.status).toBe(400);
    expect(res.headers['access-control-allow-origin']).toBe(CONSOLE);
    expect(res.headers.vary).toMatch(/origin/i);
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('x-correlation-id');
    expect(corsHeaders((await t.get('/api/v1/roles/%E0%A4%A', { headers: { origin: EVIL } })).headers)).toEqual([]);
  });

  it('gives an origin that is not listed no CORS header, on a preflight or an actual request', async () => {
    const pre = await preflight(t, '/api/v1/roles/cajero', EVIL, 'PUT');
    expect(corsHeaders(pre.headers)).toEqual([]);
    expect(pre.status).not.toBe(204);
    const actual = await t.get('/api/v1/roles/cajero', { token: admin, headers: { origin: EVIL } });
    expect(actual.status).toBe(200);
    expect(corsHeaders(actual.headers)).toEqual([]);
  });

  it('gives no CORS header to anyone while CORS_ORIGINS is empty', async () => {
    const plain = await TestApp.create({ env: { CORS_ORIGINS: '' } });
    try {
      const pre = await preflight(plain, '/api/v1/roles/cajero', CONSOLE, 'PUT');
      expect(corsHeaders(pre.headers)).toEqual([]);
      // no CORS handling registered at all: the preflight is an unknown route
      expect(pre.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('bodiless operations accept an empty body sent as application/json', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t?.close());

  const empty = (method: 'POST' | 'DELETE', url: string, token: string) =>
    t.request(method, url, { token, raw: '', headers: { 'content-type': 'application/json' } });

  it('deactivates and reactivates with an empty JSON body', async () => {
    const medio = await t.post('/api/v1/admin/medios', { codigo: 'VACIO_1', nombre: 'Medio' }, { token: admin });
    expect((await empty('POST', `/api/v1/admin/medios/${medio.body.id}/deactivate`, admin)).status).toBe(200);
    expect((await empty('POST', `/api/v1/admin/medios/${medio.body.id}/reactivate`, admin)).status).toBe(200);
  });

  it("resets a user's password and deletes a role with an empty JSON body", async () => {
    const user = await t.createUser('cajero');
    const reset = await empty('POST', `/api/v1/users/${user.id}/password-reset`, admin);
    expect(reset.status).toBe(200);
    await t.post('/api/v1/roles', { codigo: 'rol_vacio', nombre: 'Rol' }, { token: admin });
    expect((await empty('DELETE', '/api/v1/roles/rol_vacio', admin)).status).toBe(204);
  });

  it('also accepts {} and null as an empty body', async () => {
    const medio = await t.post('/api/v1/admin/medios', { codigo: 'VACIO_3', nombre: 'Medio' }, { token: admin });
    for (const raw of ['{}', 'null', ' { } ']) {
      const res = await t.request('POST', `/api/v1/admin/medios/${medio.body.id}/deactivate`, {
        token: admin,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
    }
  });

  it('refuses a body that carries something with 400 validacion, before any work: nothing changes', async () => {
    const medio = await t.post('/api/v1/admin/medios', { codigo: 'VACIO_4', nombre: 'Medio' }, { token: admin });
    const deactivate = await t.post(`/api/v1/admin/medios/${medio.body.id}/deactivate`, { activo: true }, { token: admin });
    expect(deactivate).toMatchObject({
      status: 400,
      body: { code: 'validacion', errors: [{ field: 'activo', code: 'whitelistValidation', message: 'activo no es un campo admitido' }] },
    });
    expect((await t.get(`/api/v1/admin/medios/${medio.body.id}`, { token: admin })).body.activo).toBe(true);
    for (const raw of ['"hola"', '[]', '1', 'true']) {
      const res = await t.request('POST', `/api/v1/admin/medios/${medio.body.id}/deactivate`, {
        token: admin,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res).toMatchObject({ status: 400, body: { code: 'validacion', errors: [{ field: 'body', code: 'isEmpty' }] } });
    }
    // the fiscal routes answer in their own shape
    const iva = await t.post('/api/v1/admin/fiscal/tipos-iva', { codigo: 901, descripcion: 'IVA', porcentaje: 21 }, { token: admin });
    const fiscal = await t.post(`/api/v1/admin/fiscal/tipos-iva/${iva.body.id}/deactivate`, { motivo: 'x' }, { token: admin });
    expect(fiscal).toMatchObject({ status: 400, body: { error: 'validacion' } });
    expect((await t.get(`/api/v1/admin/fiscal/tipos-iva/${iva.body.id}`, { token: admin })).body.activo).toBe(true);
  });

  it('refuses a body on every operation of the document that declares none', async () => {
    const document = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const bodiless = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method, operation]) => ['post', 'put', 'delete'].includes(method) && !operation.requestBody)
        .map(([method]) => [method.toUpperCase() as 'POST' | 'PUT' | 'DELETE', path] as const),
    );
    expect(bodiless.length).toBeGreaterThanOrEqual(20);
    for (const [method, path] of bodiless) {
      const url = path
        .replace('{codigo}', 'cajero')
        .replace(/\{(sessionId|id)\}/g, (_m, name: string) => (name === 'sessionId' ? randomUUID() : '999999'));
      const res = await t.request(method, url, { token: admin, body: { inesperado: 1 } });
      expect({ operation: `${method} ${path}`, status: res.status, field: res.body?.errors?.[0]?.field ?? res.body?.message }).toEqual({
        operation: `${method} ${path}`,
        status: 400,
        field: path.includes('/fiscal/') ? expect.stringContaining('inesperado') : 'inesperado',
      });
    }
  });

  it('logs out with an empty JSON body', async () => {
    const user = await t.createUser('cajero');
    expect((await empty('POST', '/api/v1/auth/logout', user.token)).status).toBe(204);
  });

  it('still refuses an empty body where a body is required, and malformed JSON, with 400 validacion', async () => {
    const medio = await t.post('/api/v1/admin/medios', { codigo: 'VACIO_2', nombre: 'Medio' }, { token: admin });
    const put = await t.request('PUT', `/api/v1/admin/medios/${medio.body.id}`, { token: admin, raw: '' });
    expect(put).toMatchObject({ status: 400, body: { code: 'validacion' } });
    const malformed = await t.request('PUT', `/api/v1/admin/medios/${medio.body.id}`, { token: admin, raw: '{"nombre":' });
    expect(malformed).toMatchObject({ status: 400, body: { code: 'validacion', detail: 'El cuerpo de la solicitud no es JSON válido' } });
  });

  it('answers another content type with 415 and its own detail, not the framework message', async () => {
    const xml = await t.request('POST', '/api/v1/admin/medios', { token: admin, raw: '<medio/>', headers: { 'content-type': 'application/xml' } });
    expect(xml).toMatchObject({
      status: 415,
      body: { code: 'tipo_de_contenido_no_soportado', detail: 'Tipo de contenido no soportado; use application/json' },
    });
    // JSON text labelled text/plain is not read as JSON (and nothing is created)
    for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded']) {
      const labelled = await t.request('POST', '/api/v1/admin/medios', {
        token: admin,
        raw: '{"codigo":"TEXTO_PLANO","nombre":"Medio"}',
        headers: { 'content-type': type },
      });
      expect(labelled).toMatchObject({ status: 415, body: { code: 'tipo_de_contenido_no_soportado' } });
    }
    expect((await t.get('/api/v1/admin/medios?search=TEXTO_PLANO', { token: admin })).body).toEqual([]);
    // JSON is UTF-8: another charset is 415, invalid UTF-8 is 400, never stored as U+FFFD
    const latin1 = await t.request('POST', '/api/v1/admin/medios', {
      token: admin,
      raw: '{"codigo":"LATIN_1","nombre":"Ñandú"}',
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
    });
    expect(latin1).toMatchObject({ status: 415, body: { code: 'tipo_de_contenido_no_soportado' } });
    const invalid = await t.request('POST', '/api/v1/admin/medios', {
      token: admin,
      raw: Buffer.concat([Buffer.from('{"codigo":"UTF_8","nombre":"'), Buffer.from([0xd1]), Buffer.from('and\u00fa"}')]),
      headers: { 'content-type': 'application/json' },
    });
    expect(invalid).toMatchObject({ status: 400, body: { code: 'validacion', errors: [{ field: 'body', code: 'utf8' }] } });
    const declared = await t.request('POST', '/api/v1/admin/medios', {
      token: admin,
      raw: Buffer.from('{"codigo":"UTF_8","nombre":"Ñandú"}'),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(declared).toMatchObject({ status: 201, body: { nombre: 'Ñandú' } });
  });
});
