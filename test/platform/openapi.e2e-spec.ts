import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../../src/common/swagger/swagger.js';
import { TestApp } from '../support/test-app.js';

/** The committed openapi.json is the contract integrators read: it must match the code. */
describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await TestApp.create();
    doc = JSON.parse(JSON.stringify(buildOpenApiDocument(t.app)));
  });
  afterAll(async () => {
    await t.close();
  });

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
});
