import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';

const RUBROS = 'catalogo:rubros:gestionar';
const TYPES = 'catalogo:tipos_producto:gestionar';
const PRODUCTS = 'catalogo:productos:gestionar';

/** Every catalog operation (docs/api.md "Catalog"): [method, path, required permission or null for any valid token, success status]. */
const OPERATIONS: Array<[string, string, string | null, string]> = [
  ['get', '/api/v1/admin/rubros/tree', RUBROS, '200'],
  ['get', '/api/v1/admin/rubros/{id}', RUBROS, '200'],
  ['post', '/api/v1/admin/rubros', RUBROS, '201'],
  ['put', '/api/v1/admin/rubros/{id}', RUBROS, '200'],
  ['post', '/api/v1/admin/rubros/{id}/move', RUBROS, '200'],
  ['post', '/api/v1/admin/rubros/{id}/deactivate', RUBROS, '200'],
  ['post', '/api/v1/admin/rubros/{id}/reactivate', RUBROS, '200'],
  ['get', '/api/v1/product-types', null, '200'],
  ['get', '/api/v1/product-types/{id}', null, '200'],
  ['post', '/api/v1/admin/product-types', TYPES, '201'],
  ['put', '/api/v1/admin/product-types/{id}', TYPES, '200'],
  ['post', '/api/v1/admin/product-types/{id}/deactivate', TYPES, '200'],
  ['post', '/api/v1/admin/product-types/{id}/reactivate', TYPES, '200'],
  ['get', '/api/v1/products', null, '200'],
  ['get', '/api/v1/products/{id}', null, '200'],
  ['post', '/api/v1/admin/products', PRODUCTS, '201'],
  ['put', '/api/v1/admin/products/{id}', PRODUCTS, '200'],
  ['post', '/api/v1/admin/products/{id}/deactivate', PRODUCTS, '200'],
  ['post', '/api/v1/admin/products/{id}/reactivate', PRODUCTS, '200'],
  ['get', '/api/v1/products/{id}/prices', null, '200'],
  ['get', '/api/v1/products/{id}/prices/{priceId}', null, '200'],
  ['get', '/api/v1/products/{id}/prices/vigente', null, '200'],
  ['post', '/api/v1/admin/products/{id}/prices', PRODUCTS, '201'],
];

describe('catalog in the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await TestApp.create();
    doc = (await t.get('/docs/openapi.json')).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(OPERATIONS)('describes %s %s with its answers and access', (method, path, permission, success) => {
    const op = doc.paths[path]?.[method];
    expect(op).toBeDefined();
    expect(op.summary).toEqual(expect.any(String));
    expect(op.description).toEqual(expect.any(String));
    expect(op.responses[success]?.content?.['application/json']?.schema).toBeDefined();
    expect(op.responses['401']).toBeDefined();
    expect(op.security).toEqual([{ bearer: [] }]);
    if (permission) {
      expect(op['x-required-permission']).toBe(permission);
      expect(op.description).toContain(`Required permission: \`${permission}\`.`);
      expect(op.responses['403']).toBeDefined();
    } else {
      expect(op['x-required-permission']).toBeUndefined();
    }
  });

  it('documents no update or delete of prices', () => {
    expect(Object.keys(doc.paths['/api/v1/products/{id}/prices/{priceId}'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/v1/admin/products/{id}/prices'])).toEqual(['post']);
  });

  it('describes the nested tree node with its children', () => {
    const node = doc.components.schemas.RubroTreeNodeDto;
    expect(node.properties.hijos).toEqual({
      type: 'array',
      description: expect.any(String),
      items: { $ref: '#/components/schemas/RubroTreeNodeDto' },
    });
    expect(Object.keys(node.properties)).toEqual(expect.arrayContaining(['id', 'nombre', 'parentId', 'activo', 'tieneAvisos', 'nivel', 'hijos']));
  });
});
