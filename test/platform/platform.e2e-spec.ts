import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../../src/audit/audit.service.js';
import { AuditIntegrityService } from '../../src/audit/integrity/audit-integrity.service.js';
import { RequestContext } from '../../src/common/context/request-context.js';
import { RoleEntity } from '../../src/roles/role.entity.js';
import { TestApp } from '../support/test-app.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('platform', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create()));
  afterAll(() => t.close());

  it('answers /health/live with 200 and a generated correlation id', async () => {
    const res = await t.get('/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-correlation-id']).toMatch(GUID);
  });

  it('echoes a client correlation id that is a GUID and replaces one that is not', async () => {
    const mine = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect((await t.get('/health/live', { headers: { 'x-correlation-id': mine } })).headers['x-correlation-id']).toBe(mine);
    const replaced = (await t.get('/health/live', { headers: { 'x-correlation-id': 'not-a-guid' } })).headers['x-correlation-id'];
    expect(replaced).toMatch(GUID);
    expect(replaced).not.toBe('not-a-guid');
  });

  it('answers an unknown route with a 404 problem document carrying the correlation id', async () => {
    const res = await t.get('/api/v1/nope', { headers: { 'x-correlation-id': '0f8fad5b-d9cb-469f-a165-70867728950e' } });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: expect.any(String),
      instance: '/api/v1/nope',
      code: 'no_encontrado',
      correlationId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    });
  });

  it('gives an upper-case correlation id back as the client wrote it, in the header and the error body', async () => {
    const mine = '0F8FAD5B-D9CB-469F-A165-70867728950E';
    const res = await t.get('/api/v1/nope', { headers: { 'x-correlation-id': mine } });
    expect(res.headers['x-correlation-id']).toBe(mine);
    expect(res.body.correlationId).toBe(mine);
  });

  it('answers malformed JSON with 400 validacion in the same shape', async () => {
    const res = await t.request('POST', '/api/v1/auth/login', { raw: '{"username": "admin", ' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validacion');
    expect(res.body.correlationId).toMatch(GUID);
    expect(res.headers['x-correlation-id']).toBe(res.body.correlationId);
    expect(res.text).not.toMatch(/at .*\.js:\d+/);
  });

  it('refuses a body it cannot read after 401 and 403: the caller first, then the body', async () => {
    const bodies = ['{"codigo": "X", ', '{"codigo":"X","nombre":"x","n":1e999}', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])];
    const caller = await t.createUser('consulta');
    const admin = await t.adminToken();
    for (const raw of bodies) {
      const anonymous = await t.request('POST', '/api/v1/admin/medios', { raw });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('no_autenticado');

      const before = (await t.securityEvents('permission.denied')).length;
      const refused = await t.request('POST', '/api/v1/admin/medios', { raw, token: caller.token });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('permiso_denegado');
      expect(await t.securityEvents('permission.denied')).toHaveLength(before + 1);

      const allowed = await t.request('POST', '/api/v1/admin/medios', { raw, token: admin });
      expect(allowed.status).toBe(400);
      expect(allowed.body.code).toBe('validacion');
    }
    // a body over the limit or of another type is refused before anything else, as before
    expect((await t.request('POST', '/api/v1/admin/medios', { raw: '{}', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    // so is a body in a content coding the service does not decode
    for (const coding of ['gzip', 'br'])
      expect((await t.request('POST', '/api/v1/admin/medios', { raw: '{}', headers: { 'content-encoding': coding } })).body.code).toBe(
        'tipo_de_contenido_no_soportado',
      );
    expect((await t.request('POST', '/api/v1/admin/medios', { raw: '{}', headers: { 'content-encoding': 'identity' } })).status).toBe(401);
  });

  it('refuses a query parameter an operation of /api/v1 does not declare, after 401 and 403; the probes take any', async () => {
    const admin = await t.adminToken();
    // asOf is read by GET /users/{id}; GET /roles/{codigo} does not take it and answered today's role
    const role = await t.get('/api/v1/roles/admin?asOf=2001-01-01T00:00:00Z', { token: admin });
    expect(role.status).toBe(400);
    expect(role.body.code).toBe('validacion');
    expect(role.body.errors).toEqual([{ field: 'asOf', code: 'whitelistValidation', message: 'asOf no es un campo admitido' }]);
    expect((await t.get('/api/v1/users/1?asOf=2001-01-01T00:00:00Z', { token: admin })).status).not.toBe(400);
    // a parameter without a name is named as such, in Spanish like the rest
    const nameless = await t.get('/api/v1/admin/medios?=1', { token: admin });
    expect(nameless.body.errors).toEqual([{ field: '', code: 'whitelistValidation', message: 'un campo sin nombre no es admitido' }]);
    expect((await t.get('/api/v1/auth/me?x=1', { token: admin })).status).toBe(400);
    expect((await t.get('/api/v1/roles/admin', { token: admin })).status).toBe(200);
    // the fiscal routes answer in their own shape
    const fiscal = await t.get('/api/v1/admin/fiscal/provincias?activo=true', { token: admin });
    expect(fiscal.status).toBe(400);
    expect(fiscal.body).toEqual({ error: 'validacion', message: expect.any(String) });
    // a public operation too; the caller and its permission come first
    expect((await t.request('POST', '/api/v1/auth/login?next=/x', { body: { username: 'admin', password: 'not-the-password' } })).status).toBe(400);
    expect((await t.get('/api/v1/roles/admin?x=1')).status).toBe(401);
    const caller = await t.createUser('consulta');
    expect((await t.get('/api/v1/audit/integrity?x=1', { token: caller.token })).body.code).toBe('permiso_denegado');
    // machines' endpoints outside /api/v1 ignore what they are sent
    expect((await t.get('/health/live?cache=1')).status).toBe(200);
    expect((await t.get('/.well-known/jwks.json?v=2')).status).toBe(200);
  });

  it("takes a path value of any length to its route: 401 without a token, then 400 or 404, never the router's 414", async () => {
    const admin = await t.adminToken();
    const longCode = 'a'.repeat(5000);
    expect((await t.get(`/api/v1/roles/${longCode}`)).status).toBe(401);
    expect((await t.get(`/api/v1/roles/${longCode}`, { token: admin })).body.code).toBe('validacion');
    expect((await t.get(`/api/v1/roles/${'a'.repeat(201)}`, { token: admin })).status).not.toBe(414);
    expect((await t.get(`/api/v1/roles/${'A'.repeat(201)}`, { token: admin })).status).toBe(400);
    expect((await t.get(`/api/v1/users/${'9'.repeat(201)}`, { token: admin })).status).toBe(400);
  });

  it('answers a malformed %-escape in the URL with a 400 problem document', async () => {
    const res = await t.get('/api/v1/roles/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validacion');
    expect(res.headers['x-correlation-id']).toMatch(GUID);
  });

  it('answers a malformed %-escape or bytes that are no UTF-8 in the query string with the same 400, before authentication', async () => {
    for (const query of ['search=%zz', 'search=%ff', 'search=%ED%A0%80', 'search=a%2']) {
      const res = await t.get(`/api/v1/admin/medios?${query}`);
      expect({ query, status: res.status, code: res.body.code, detail: res.body.detail }).toEqual({
        query,
        status: 400,
        code: 'validacion',
        detail: 'La URL de la solicitud no es válida',
      });
      expect(res.headers['x-correlation-id']).toMatch(GUID);
    }
    // well-formed escapes, and a % that is part of a value sent escaped, are served
    const admin = await t.adminToken();
    expect((await t.get('/api/v1/admin/medios?search=%C3%B1', { token: admin })).status).toBe(200);
    expect((await t.get('/api/v1/admin/medios?search=100%25', { token: admin })).status).toBe(200);
  });

  it('answers unknown body properties with 400 and field errors', async () => {
    const res = await t.post('/api/v1/auth/login', { username: 'admin', password: 'x', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validacion');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'extra' })]));
  });

  it('answers a protected route without a token with 401 no_autenticado', async () => {
    const res = await t.get('/api/v1/auth/me');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('no_autenticado');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('signs in the bootstrap admin and serves /auth/me', async () => {
    const token = await t.adminToken();
    const res = await t.get('/api/v1/auth/me', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: 'admin', rol: 'admin' });
    expect(res.body.permisos).toContain('administracion:roles:gestionar');
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const doc = await t.get('/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    const ui = await t.get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toMatch(/swagger/i);
    // a token pasted into Authorize is not written to the browser's localStorage
    const init = await t.get('/docs/swagger-ui-init.js');
    expect(init.text).toMatch(/"persistAuthorization": false/);
  });

  it.each(['/docs', '/docs/', '/docs/index.html'])('serves Swagger UI at %s with every asset its page loads', async (path) => {
    let page = await t.get(path);
    let url = path;
    if (page.status === 301) {
      url = page.headers.location as string;
      expect(url).toBe('/docs');
      page = await t.get(url);
    }
    expect(page.status).toBe(200);
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => new URL(m[1]!, `http://x${url}`).pathname);
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']));
    for (const asset of assets) expect([asset, (await t.get(asset)).status]).toEqual([asset, 200]);
  });

  it("sends helmet's default security headers on every answer, errors and Swagger UI included", async () => {
    const expected = {
      'content-security-policy':
        "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;" +
        "object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline'",
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
      'x-content-type-options': 'nosniff',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-frame-options': 'SAMEORIGIN',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    };
    const answers = [
      await t.get('/health/live'),
      await t.get('/docs'),
      await t.get('/api/v1/admin/medios/1'), // 401
      await t.get('/no/such/route'), // 404
      await t.get('/api/v1/admin/medios/%E0%A4%A'), // fastify's own error (frameworkErrors)
    ];
    for (const res of answers) {
      expect(res.headers).toMatchObject(expected);
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('writes the request correlation id, client IP and user agent into the audit event', async () => {
    const correlationId = '3b241101-e2bb-4255-8caf-4136c566a962';
    const res = await t.post(
      '/api/v1/admin/medios',
      { codigo: 'CTX_PROBE', nombre: 'Contexto' },
      {
        token: await t.adminToken(),
        headers: { 'x-correlation-id': correlationId, 'user-agent': 'platform-test/1.0' },
      },
    );
    expect(res.status).toBe(201);
    const [event] = await t.auditEvents({ action: 'medio.create', targetId: String(res.body.id) });
    expect(event.correlation_id).toBe(correlationId);
    expect(event.user_agent).toBe('platform-test/1.0');
    expect(event.ip).toBe('127.0.0.1');
  });

  it('stores an upper-case correlation id as the GUID it is: the audit gives it back in lower case, and the event verifies', async () => {
    const correlationId = '3B241101-E2BB-4255-8CAF-4136C566A963';
    const admin = await t.adminToken();
    const res = await t.post(
      '/api/v1/admin/medios',
      { codigo: 'CTX_UPPER', nombre: 'Mayúsculas' },
      { token: admin, headers: { 'x-correlation-id': correlationId } },
    );
    expect(res.status).toBe(201);
    expect(res.headers['x-correlation-id']).toBe(correlationId);
    const listed = await t.get(`/api/v1/audit/events?action=medio.create&targetId=${res.body.id}`, { token: admin });
    expect(listed.body.items).toEqual([expect.objectContaining({ correlationId: correlationId.toLowerCase() })]);
    // its row hash, written from the upper-case text, verifies against the row read back
    expect((await t.app.get(AuditIntegrityService).verify()).intact).toBe(true);
  });

  describe('fail-closed audit', () => {
    it('rolls back the change when the audit insert fails at the database', async () => {
      const restore = await t.makeInsertsFail('audit_events', 'audit store unavailable');
      try {
        const txHost = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
        const audit = t.app.get(AuditService);
        const context = t.app.get(RequestContext);
        await expect(
          context.runAs(1, () =>
            txHost.withTransaction(async () => {
              await txHost.tx.insert(RoleEntity, { codigo: 'fail_closed_probe', nombre: 'x', descripcion: '', activo: true });
              await audit.record('rol.create', 'rol', 'fail_closed_probe', { after: { codigo: 'fail_closed_probe' } });
            }),
          ),
        ).rejects.toThrow(/audit store unavailable/);
        expect(await t.query(`SELECT 1 FROM roles WHERE codigo = 'fail_closed_probe'`)).toHaveLength(0);
      } finally {
        await restore();
      }
    });

    it('refuses to write an audit event without an actor, and nothing is kept', async () => {
      const txHost = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
      const audit = t.app.get(AuditService);
      const context = t.app.get(RequestContext);
      await expect(
        context.runAs(undefined, () =>
          txHost.withTransaction(async () => {
            await txHost.tx.insert(RoleEntity, { codigo: 'no_actor_probe', nombre: 'x', descripcion: '', activo: true });
            await audit.record('rol.create', 'rol', 'no_actor_probe');
          }),
        ),
      ).rejects.toThrow(/no authenticated actor/);
      expect(await t.query(`SELECT 1 FROM roles WHERE codigo = 'no_actor_probe'`)).toHaveLength(0);
    });

    it('keeps the change and its audit row together when both succeed', async () => {
      const txHost = t.app.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
      const audit = t.app.get(AuditService);
      const context = t.app.get(RequestContext);
      await context.runAs(1, () =>
        txHost.withTransaction(async () => {
          await txHost.tx.insert(RoleEntity, { codigo: 'committed_probe', nombre: 'x', descripcion: '', activo: true });
          await audit.record('rol.create', 'rol', 'committed_probe', { after: { codigo: 'committed_probe', password: 'secret' } });
        }),
      );
      expect(await t.query(`SELECT 1 FROM roles WHERE codigo = 'committed_probe'`)).toHaveLength(1);
      const [event] = await t.auditEvents({ targetId: 'committed_probe' });
      expect(event).toMatchObject({ action: 'rol.create', target_type: 'rol', actor_user_id: 1 });
      expect(event.metadata).toEqual({ after: { codigo: 'committed_probe' } });
    });
  });
});
