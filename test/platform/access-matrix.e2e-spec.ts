import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CreatedUser, type HttpResult, TestApp } from '../support/test-app.js';

/**
 * Access to every operation, driven by the OpenAPI document the app serves (so a new route is in
 * it without editing this file):
 * - an operation with `x-required-permission` answers 401 without a token, 403 `permiso_denegado`
 *   (and a `permission.denied` security event) to a user holding every permission but that one,
 *   and gets past the guard with it;
 * - an operation without one must be listed below as public or as open to any signed-in user,
 *   else this test fails: a route that forgot its @RequirePermission cannot slip through.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Operations anyone may call (no token): @Public() routes. */
const PUBLIC = new Set([
  'GET /.well-known/jwks.json',
  'GET /.well-known/audit-keys.json',
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/refresh',
  'GET /health/live',
  'GET /health/ready',
  'GET /health/audit',
]);

/** Operations any signed-in user may call (a valid token, no particular permission). */
const ANY_TOKEN = new Set([
  'GET /api/v1/auth/me',
  'POST /api/v1/auth/logout',
  'PUT /api/v1/users/me/password',
  'GET /api/v1/auth/sessions',
  'DELETE /api/v1/auth/sessions/{id}',
  'GET /api/v1/product-types',
  'GET /api/v1/product-types/{id}',
  'GET /api/v1/products',
  'GET /api/v1/products/{id}',
  'GET /api/v1/products/{id}/prices',
  'GET /api/v1/products/{id}/prices/{priceId}',
  'GET /api/v1/products/{id}/prices/vigente',
]);

/**
 * The permission each area of the API requires, first match wins: pins what the document says, so
 * a decorator naming the wrong permission fails here, and a guarded operation outside every area
 * fails until its area is added.
 */
const AREAS: Array<[method: RegExp, path: RegExp, permission: string]> = [
  [/./, /^\/api\/v1\/users\/\{id\}\/sessions(\/|$)/, 'administracion:usuarios:gestionar'],
  [/^GET$/, /^\/api\/v1\/users(\/|$)/, 'administracion:usuarios:ver'],
  [/./, /^\/api\/v1\/users(\/|$)/, 'administracion:usuarios:gestionar'],
  [/^GET$/, /^\/api\/v1\/(roles|permisos)(\/|$)/, 'administracion:roles:ver'],
  [/./, /^\/api\/v1\/(roles|permisos)(\/|$)/, 'administracion:roles:gestionar'],
  [/^GET$/, /^\/api\/v1\/audit\//, 'administracion:auditoria:ver'],
  [/./, /^\/api\/v1\/admin\/fiscal\//, 'administracion:fiscal:gestionar'],
  [/./, /^\/api\/v1\/admin\/(puntos-de-venta(\/|$)|medios\/\{medioId\}\/puntos-de-venta$)/, 'administracion:puntos_de_venta:gestionar'],
  [/./, /^\/api\/v1\/admin\/(medios|secciones)(\/|$)/, 'administracion:medios:gestionar'],
  [/./, /^\/api\/v1\/admin\/rubros(\/|$)/, 'catalogo:rubros:gestionar'],
  [/./, /^\/api\/v1\/admin\/product-types(\/|$)/, 'catalogo:tipos_producto:gestionar'],
  [/./, /^\/api\/v1\/admin\/products(\/|$)/, 'catalogo:productos:gestionar'],
];

/** Point-in-time reads (`asOf`) also need the audit permission. */
const AS_OF = { asOf: 'administracion:auditoria:ver' };
const AS_OF_READS = new Set(['GET /api/v1/users/{id}', 'GET /api/v1/users/{id}/permisos', 'GET /api/v1/roles/{codigo}/permisos']);

/**
 * Values for path parameters: ids no resource has, so a caller who gets past the guard is answered
 * 404 (or 400 for the placeholder body) and nothing is changed by the walk.
 */
const PATH_FIXTURES: Record<string, string> = {
  id: '999999',
  medioId: '999999',
  priceId: '999999',
  sessionId: '00000000-0000-4000-8000-000000000000',
  codigo: 'rol_inexistente',
};

/** Answers that show the request got past the guard to the handler's own checks. */
const PASSED_GUARD = (status: number) => (status >= 200 && status < 300) || [400, 404, 409, 412].includes(status);

interface Operation {
  key: string;
  method: Method;
  path: string;
  url: string;
  /** the route as fastify names it (`:id`), which the security event records */
  route: string;
  permissions: string[];
  queryPermissions: Record<string, string>;
  hasBody: boolean;
  secured: boolean;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const required = op['x-required-permission'];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase() as Method,
        path,
        url: path.replace(/\{(\w+)\}/g, (_m, name: string) => {
          const value = PATH_FIXTURES[name];
          if (value === undefined) throw new Error(`add path parameter {${name}} of ${method.toUpperCase()} ${path} to PATH_FIXTURES`);
          return value;
        }),
        route: path.replace(/\{(\w+)\}/g, ':$1'),
        permissions: required === undefined ? [] : ([] as string[]).concat(required),
        queryPermissions: op['x-required-permission-with-query'] ?? {},
        hasBody: Boolean(op.requestBody),
        secured: Array.isArray(op.security) && op.security.length > 0,
      });
    }
  }
  return ops;
}

/** 401/403 on /admin/fiscal routes are `{error, message}`; everywhere else a problem document. */
function expectDenied(op: Operation, res: HttpResult, status: 401 | 403, code: string): void {
  const fiscal = op.path.startsWith('/api/v1/admin/fiscal/');
  expectNoLeak(op, res);
  const seen = { op: op.key, status: res.status, body: res.body };
  if (fiscal) {
    expect(seen).toEqual({ op: op.key, status, body: { error: code, message: expect.any(String) } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  } else {
    expect(seen).toEqual({ op: op.key, status, body: expect.objectContaining({ status, code }) });
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
}

function expectNoLeak(op: Operation, res: HttpResult): void {
  expect({ op: op.key, leaks: /at .*\.js:\d+|SELECT|INSERT|UPDATE /.test(res.text) }).toEqual({ op: op.key, leaks: false });
}

function expectPassed(op: Operation, res: HttpResult): void {
  expect({ op: op.key, passed: PASSED_GUARD(res.status), status: res.status }).toEqual({ op: op.key, passed: true, status: res.status });
}

describe('access matrix: every operation of the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let ops: Operation[];
  let allCodes: string[];
  /** a user whose effective permissions are every permission there is */
  let full: CreatedUser;

  const call = (op: Operation, token?: string, query?: Record<string, string>) =>
    t.request(op.method, op.url, { token, query, ...(op.hasBody ? { body: {} } : {}) });

  /** A signed-in user holding every permission except `missing`. */
  const allBut = (missing: string) => t.createUser('admin', { overrides: { granted: allCodes, denied: [missing] } });

  beforeAll(async () => {
    t = await TestApp.create();
    const res = await t.get('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
    ops = operationsOf(doc);
    allCodes = (await t.query<{ codigo: string }>('SELECT codigo FROM permissions')).map((r) => r.codigo);
    full = await t.createUser('admin', { overrides: { granted: allCodes, denied: [] } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('classifies every operation: a required permission, or listed as public or as open to any signed-in user', () => {
    const guarded = ops.filter((op) => op.permissions.length > 0);
    const anyToken = ops.filter((op) => ANY_TOKEN.has(op.key));
    const open = ops.filter((op) => PUBLIC.has(op.key));
    const unclassified = ops.filter((op) => op.permissions.length === 0 && !ANY_TOKEN.has(op.key) && !PUBLIC.has(op.key));
    expect(unclassified.map((op) => op.key)).toEqual([]);
    // the lists name only operations that exist and carry no permission of their own
    const stale = [...PUBLIC, ...ANY_TOKEN].filter((key) => !ops.some((op) => op.key === key && op.permissions.length === 0));
    expect(stale).toEqual([]);
    expect(guarded.length + anyToken.length + open.length).toBe(ops.length);
    // public operations document no security; every other one documents the bearer scheme
    expect(open.filter((op) => op.secured).map((op) => op.key)).toEqual([]);
    expect(ops.filter((op) => !PUBLIC.has(op.key) && !op.secured).map((op) => op.key)).toEqual([]);
    // every permission an operation names exists
    const unknown = ops.flatMap((op) => [...op.permissions, ...Object.values(op.queryPermissions)]).filter((code) => !allCodes.includes(code));
    expect(unknown).toEqual([]);
  });

  it('documents for every guarded operation the permission of its area, and asOf reads as also needing the audit permission', () => {
    const mismatches = ops
      .filter((op) => op.permissions.length > 0)
      .flatMap((op) => {
        const area = AREAS.find(([method, path]) => method.test(op.method) && path.test(op.path));
        if (!area) return [`${op.key}: in no area of AREAS (requires ${op.permissions.join(', ')})`];
        return op.permissions.join() === area[2] ? [] : [`${op.key}: requires ${op.permissions.join(', ')}, its area ${area[2]}`];
      });
    expect(mismatches).toEqual([]);
    const withQuery = ops.filter((op) => Object.keys(op.queryPermissions).length > 0);
    expect(withQuery.map((op) => op.key).sort()).toEqual([...AS_OF_READS].sort());
    for (const op of withQuery) expect({ op: op.key, query: op.queryPermissions }).toEqual({ op: op.key, query: AS_OF });
  });

  it('documents every path parameter (integer or uuid ids), 404 for a path naming a resource, 400 for a body, and {error, message} answers on fiscal routes', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses ?? {});
        for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)) {
          const param = (op.parameters ?? []).find((q: any) => q.name === name && q.in === 'path');
          if (!param?.required) problems.push(`${where}: path parameter ${name} not declared as required`);
          else if (name !== 'codigo' && param.schema?.type !== 'integer' && param.schema?.format !== 'uuid')
            problems.push(`${where}: path parameter ${name} is neither an integer nor a uuid`);
          if (!statuses.includes('404')) problems.push(`${where}: 404 not documented`);
        }
        if (op.requestBody && !statuses.includes('400')) problems.push(`${where}: 400 not documented`);
        if (path.startsWith('/api/v1/admin/fiscal/')) {
          for (const status of statuses.filter((s) => Number(s) >= 400)) {
            const declared = op.responses[status];
            const response = declared.$ref ? doc.components.responses[declared.$ref.split('/').pop()] : declared;
            const content = response?.content ?? {};
            if (Object.keys(content).join() !== 'application/json' || !/FiscalErrorDto$/.test(content['application/json'].schema?.$ref ?? '')) {
              problems.push(`${where}: ${status} is not documented as {error, message}`);
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('answers 401 no_autenticado without a token on every operation that is not public', async () => {
    const checked: string[] = [];
    for (const op of ops.filter((o) => !PUBLIC.has(o.key))) {
      expectDenied(op, await call(op), 401, 'no_autenticado');
      checked.push(op.key);
    }
    expect(checked).toHaveLength(ops.length - PUBLIC.size);
  });

  it('answers 403 permiso_denegado, and records permission.denied, to a user holding every permission but the required one', async () => {
    const checked: string[] = [];
    const guarded = ops.filter((op) => op.permissions.length > 0);
    const users = new Map<string, CreatedUser>();
    for (const op of guarded) {
      for (const code of op.permissions) {
        if (!users.has(code)) users.set(code, await allBut(code));
        const user = users.get(code)!;
        expectDenied(op, await call(op, user.token), 403, 'permiso_denegado');
        const events = (await t.securityEvents('permission.denied')).filter((e) => e.actor_user_id === user.id);
        expect({ op: op.key, metadata: events[0]?.metadata, result: events[0]?.result }).toEqual({
          op: op.key,
          metadata: { permission: code, endpoint: op.route, method: op.method },
          result: 'failure',
        });
      }
      checked.push(op.key);
    }
    expect(checked).toHaveLength(ops.filter((op) => !PUBLIC.has(op.key) && !ANY_TOKEN.has(op.key)).length);
  });

  it('answers 403 permiso_denegado when a query parameter needs a permission the caller lacks, and passes with it', async () => {
    const withQuery = ops.filter((op) => Object.keys(op.queryPermissions).length > 0);
    expect(withQuery.length).toBeGreaterThan(0);
    const asOf = new Date().toISOString();
    for (const op of withQuery) {
      for (const [param, code] of Object.entries(op.queryPermissions)) {
        const user = await allBut(code);
        expect((await call(op, user.token)).status).not.toBe(403);
        expectDenied(op, await call(op, user.token, { [param]: asOf }), 403, 'permiso_denegado');
        expectPassed(op, await call(op, full.token, { [param]: asOf }));
      }
    }
  });

  it('lets a user holding the required permission past the guard on every guarded operation', async () => {
    const guarded = ops.filter((op) => op.permissions.length > 0);
    for (const op of guarded) expectPassed(op, await call(op, full.token));
    expect(guarded.length).toBe(ops.length - PUBLIC.size - ANY_TOKEN.size);
  });

  it('lets any signed-in user, holding no permission at all, past the guard on the operations open to any signed-in user', async () => {
    await t.query(`INSERT INTO roles (codigo, nombre, descripcion, activo) VALUES ('matriz_sin_permisos', 'Sin permisos', '', $1)`, [true]);
    for (const op of ops.filter((o) => ANY_TOKEN.has(o.key))) {
      // a user per operation: logout and a password change end or alter the caller's session
      const nobody = await t.createUser('matriz_sin_permisos');
      expectPassed(op, await call(op, nobody.token));
    }
  });

  it('serves every public operation without a token', async () => {
    for (const op of ops.filter((o) => PUBLIC.has(o.key))) expectPassed(op, await call(op));
  });
});
