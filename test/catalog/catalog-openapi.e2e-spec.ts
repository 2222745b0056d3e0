import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';

describe('catalog in the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await TestApp.create();
    doc = (await t.get('/docs/openapi.json')).body;
  });
  afterAll(() => t.close());

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
