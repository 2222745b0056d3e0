import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DECIMAL_FIELDS } from '../../src/common/swagger/document-rules.js';
import { buildOpenApiDocument } from '../../src/common/swagger/swagger.js';
import { ERROR_CODES } from '../../src/common/errors/error-codes.js';
import { ROLE_CODE_MAX_LENGTH, ROLE_CODE_PATTERN } from '../../src/roles/roles.rules.js';
import { TestApp } from '../support/test-app.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../support/test-env.js';

/** The committed openapi.json is the contract integrators read: it must match the code. */
describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await TestApp.create();
    doc = JSON.parse(JSON.stringify(buildOpenApiDocument(t.app)));
  });
  afterAll(() => t.close());

  it('matches the committed openapi.json (regenerate with `npm run openapi`)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    expect(doc).toEqual(committed);
  });

  it('serves the same document at /docs/openapi.json', async () => {
    const res = await t.get('/docs/openapi.json');
    expect(res.body).toEqual(doc);
  });

  it('documents every protected operation with the bearer scheme, its permission and its error answers', () => {
    const problems: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.summary) problems.push(`${where}: no summary`);
        if (!Object.keys(op.responses ?? {}).some((s) => s.startsWith('2'))) problems.push(`${where}: no success answer`);
        const isPublic =
          path.startsWith('/health') || path.startsWith('/.well-known') || path === '/api/v1/auth/login' || path === '/api/v1/auth/refresh';
        if (isPublic) continue;
        if (!op.security?.some((s: object) => 'bearer' in s)) problems.push(`${where}: no bearer security`);
        if (!op.responses?.['401']) problems.push(`${where}: 401 not documented`);
        if (op['x-required-permission']) {
          if (!op.responses?.['403']) problems.push(`${where}: 403 not documented`);
          if (!String(op.description ?? '').includes('Required permission')) problems.push(`${where}: permission not named in the description`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  const operations = () =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
    );

  it('names every operation with a stable verb-noun id, unique, not derived from class names', () => {
    const ids = operations().map(({ where, op }) => [where, op.operationId]);
    expect(ids.filter(([, id]) => !/^[a-z]+(?:[A-Z][a-z0-9]*)*$/.test(id ?? '') || /Controller/.test(id))).toEqual([]);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
    expect(doc.paths['/api/v1/users'].get.operationId).toBe('listUsers');
    expect(doc.paths['/api/v1/admin/medios'].post.operationId).toBe('createMedio');
    expect(doc.paths['/api/v1/admin/products/{id}/prices'].post.operationId).toBe('addProductPrice');
  });

  it('says security: [] on exactly the public operations, and names the relative root as server', async () => {
    const open = operations()
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ where }) => where)
      .sort();
    expect(open).toEqual([
      'GET /.well-known/audit-keys.json',
      'GET /.well-known/jwks.json',
      'GET /health/audit',
      'GET /health/live',
      'GET /health/ready',
      'POST /api/v1/auth/login',
      'POST /api/v1/auth/refresh',
    ]);
    expect(operations().filter(({ op }) => !op.security)).toEqual([]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('declares X-Correlation-Id on every answer, Location on every 201, Retry-After on every 429 and 503', () => {
    const missing: string[] = [];
    for (const { where, op } of operations()) {
      for (const [status, declared] of Object.entries<any>(op.responses)) {
        const response = declared.$ref ? doc.components.responses[declared.$ref.split('/').pop()] : declared;
        const headers = Object.keys(response.headers ?? {});
        const need = ['X-Correlation-Id', ...(status === '201' ? ['Location'] : []), ...(['429', '503'].includes(status) ? ['Retry-After'] : [])];
        for (const h of need) if (!headers.includes(h)) missing.push(`${where} ${status}: ${h}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(doc.components.headers).sort()).toEqual(expect.arrayContaining(['Location', 'Retry-After', 'X-Correlation-Id']));
  });

  it('declares 413 and 415 on every POST, PUT and DELETE (a body can be sent to each), in the error shape of its route', () => {
    const missing: string[] = [];
    for (const { where, op } of operations()) {
      if (!/^(POST|PUT|PATCH|DELETE) /.test(where)) continue;
      const fiscal = where.includes('/fiscal/');
      for (const status of ['413', '415']) {
        const ref: string | undefined = op.responses[status]?.$ref;
        const name = ref?.split('/').pop() ?? '';
        if (!ref || name.startsWith('Fiscal') !== fiscal || !doc.components.responses[name]) missing.push(`${where} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('closes every request body (additionalProperties: false, as the server refuses other properties) and no answer', async () => {
    const open: string[] = [];
    for (const { where, op } of operations()) {
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      if (ref && doc.components.schemas[ref.split('/').pop()!].additionalProperties !== false) open.push(where);
    }
    expect(open).toEqual([]);
    const answers = JSON.stringify(operations().map(({ op }) => op.responses));
    const closedAnswers = Object.keys(doc.components.schemas).filter(
      (name) => answers.includes(`"#/components/schemas/${name}"`) && doc.components.schemas[name].additionalProperties === false,
    );
    expect(closedAnswers).toEqual([]);
    // what the document says, the server does
    const refused = await t.post('/api/v1/auth/login', { username: ADMIN_USERNAME, password: ADMIN_PASSWORD, recordarme: true });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'recordarme', code: 'whitelistValidation' })]);
  });

  it('declares 500 and 503 on every operation, in the error shape of its route', () => {
    const missing: string[] = [];
    for (const { where, op } of operations()) {
      const fiscal = where.includes('/fiscal/');
      for (const status of ['500', '503']) {
        const declared = op.responses[status];
        const name: string = declared?.$ref?.split('/').pop() ?? '';
        if (!declared || (declared.$ref && (name.startsWith('Fiscal') !== fiscal || !doc.components.responses[name])))
          missing.push(`${where} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives no optional query parameter an example (Swagger UI would send it), its description shows it instead', () => {
    const prefilled: string[] = [];
    for (const { where, op } of operations()) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === 'query' && !parameter.required && (parameter.example !== undefined || parameter.schema?.example !== undefined))
          prefilled.push(`${where} ${parameter.name}`);
      }
    }
    expect(prefilled).toEqual([]);
    const rubroId = doc.paths['/api/v1/products'].get.parameters.find((p: { name: string }) => p.name === 'rubroId');
    expect(rubroId.description).toMatch(/Example: `4`\.$/);
  });

  it('types every number as an integer except money and rates, which are exactly the decimal columns of the entities', () => {
    const decimalColumns = new Set(
      t.db.entityMetadatas.flatMap((entity) =>
        entity.columns.filter((c) => ['decimal', 'numeric'].includes(String(c.type))).map((c) => c.propertyName),
      ),
    );
    expect([...decimalColumns].sort()).toEqual([...DECIMAL_FIELDS].sort());
    const numbers: string[] = [];
    const visit = (schema: any, name: string) => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.type === 'number') numbers.push(name);
      for (const [property, child] of Object.entries<any>(schema.properties ?? {})) visit(child, property);
      visit(schema.items, name);
    };
    for (const schema of Object.values<any>(doc.components.schemas))
      for (const [p, child] of Object.entries<any>(schema.properties ?? {})) visit(child, p);
    for (const { op } of operations()) for (const parameter of op.parameters ?? []) visit(parameter.schema, parameter.name);
    expect([...new Set(numbers)].sort()).toEqual([...DECIMAL_FIELDS].sort());
  });

  it('types ProblemDetails: code is the closed ErrorCode enum, correlationId a uuid string, errors[] {field, code, message}', () => {
    const { schemas } = doc.components;
    expect(schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_CODES));
    expect(schemas.ErrorCode.enum).toEqual(expect.arrayContaining(['privilegio_insuficiente', 'version_obsoleta', 'servicio_no_disponible']));
    expect(JSON.stringify(schemas.ProblemDetailsDto.properties.code)).toContain('"$ref":"#/components/schemas/ErrorCode"');
    expect(JSON.stringify(schemas.FiscalErrorDto.properties.error)).toContain('"$ref":"#/components/schemas/ErrorCode"');
    expect(schemas.ProblemDetailsDto.properties.correlationId).toEqual(expect.objectContaining({ type: 'string', format: 'uuid' }));
    expect(schemas.FieldErrorDto.required.sort()).toEqual(['code', 'field', 'message']);
  });

  it('names the enumerations as shared schemas (SeccionTipo, Provincia)', () => {
    expect(doc.components.schemas.SeccionTipo.enum).toContain('clasificados');
    expect(doc.components.schemas.Provincia.enum).toHaveLength(24);
    expect(JSON.stringify(doc.paths)).not.toContain('"clasificados"');
  });

  it('sends errors the way the document declares them: errors[] items {field, code, message}, code in ErrorCode', async () => {
    const token = (await t.login(ADMIN_USERNAME, ADMIN_PASSWORD)).accessToken;
    const res = await t.post('/api/v1/admin/medios', { codigo: 'bad code', nombre: 'x', extra: 1 }, { token });
    expect(res.status).toBe(400);
    expect(doc.components.schemas.ErrorCode.enum).toContain(res.body.code);
    expect(res.body.correlationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.errors.length).toBeGreaterThan(0);
    for (const e of res.body.errors) {
      expect(Object.keys(e).sort()).toEqual(['code', 'field', 'message']);
      expect(typeof e.code).toBe('string');
    }
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'extra', code: 'whitelistValidation' })]));
  });

  /** Request-body properties (schemas a requestBody references) and query parameters, with where they are. */
  const inputs = () => {
    const found: Array<{ where: string; name: string; schema: any }> = [];
    for (const { where, op } of operations()) {
      for (const p of op.parameters ?? []) if (p.in === 'query') found.push({ where: `${where} ?${p.name}`, name: p.name, schema: p.schema });
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      const body = ref ? doc.components.schemas[ref.split('/').pop()!] : undefined;
      for (const [name, schema] of Object.entries<any>(body?.properties ?? {}))
        found.push({ where: `${where} ${ref!.split('/').pop()}.${name}`, name, schema });
    }
    return found;
  };

  it('declares 1..2147483647 on every id of a body or a query, as the server enforces', () => {
    const ids = inputs().filter(({ name, schema }) => /Id$/.test(name) && schema?.type === 'integer');
    expect(ids.map(({ where }) => where)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/admin/secciones CreateSeccionDto.medioId',
        'POST /api/v1/admin/puntos-de-venta CreatePuntoDeVentaDto.medioId',
        'POST /api/v1/admin/products CreateProductDto.rubroId',
        'PUT /api/v1/admin/products/{id} UpdateProductDto.productTypeId',
        'POST /api/v1/admin/rubros CreateRubroDto.parentId',
        'POST /api/v1/admin/rubros/{id}/move MoveRubroDto.parentId',
        'GET /api/v1/admin/puntos-de-venta/lookup ?medioId',
        'GET /api/v1/products ?productTypeId',
        'GET /api/v1/audit/events ?actorUserId',
      ]),
    );
    expect(ids.filter(({ schema }) => schema.minimum !== 1 || schema.maximum !== 2_147_483_647).map(({ where }) => where)).toEqual([]);
  });

  it("declares the role code's pattern and length wherever one is read: the {codigo} of /roles, a user's rol, the rol filter", () => {
    const codes = [
      ...operations().flatMap(({ where, op }) =>
        (op.parameters ?? [])
          .filter((p: any) => p.in === 'path' && p.name === 'codigo' && where.includes('/roles/'))
          .map((p: any) => ({ where, schema: p.schema })),
      ),
      ...inputs().filter(({ where, name }) => name === 'rol' || (name === 'codigo' && where.includes('CreateRoleDto'))),
    ];
    expect(codes.map(({ where }) => where)).toEqual(
      expect.arrayContaining([
        'GET /api/v1/roles/{codigo}',
        'POST /api/v1/users CreateUserDto.rol',
        'PUT /api/v1/users/{id} UpdateUserDto.rol',
        'GET /api/v1/users ?rol',
      ]),
    );
    expect(codes.length).toBeGreaterThanOrEqual(10);
    for (const { schema } of codes)
      expect(schema).toMatchObject({ type: 'string', pattern: ROLE_CODE_PATTERN.source, maxLength: ROLE_CODE_MAX_LENGTH });
  });

  it('names the instants the server reads beyond RFC 3339, and declares no date-time format that would refuse them', async () => {
    const token = await t.adminToken();
    const instants = inputs().filter(({ name }) => ['asOf', 'from'].includes(name));
    expect(instants).toHaveLength(4);
    for (const { schema } of instants) expect(schema).toEqual({ type: 'string' });
    const minute = new Date(Date.now() - 60_000).toISOString().slice(0, 16);
    const asOf = doc.paths['/api/v1/roles/{codigo}/permisos'].get.parameters.find((p: any) => p.name === 'asOf');
    expect(asOf.description).toContain('without seconds');
    const role = await t.get('/api/v1/roles/admin/permisos', { token, query: { asOf: `${minute}Z` } });
    expect([200, 404]).toContain(role.status); // parsed: the role may have been created within the minute
    const from = doc.paths['/api/v1/audit/events'].get.parameters.find((p: any) => p.name === 'from');
    expect(from.description).toMatch(/without seconds.*without an offset/);
    expect((await t.get('/api/v1/audit/events', { token, query: { from: minute, to: `${minute}:59.999999` } })).status).toBe(200);
  });
});
