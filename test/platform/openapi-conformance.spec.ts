import { describe, expect, it } from '@jest/globals';
import { conformanceProblem } from '../support/openapi-conformance.js';

/** The check every in-process answer goes through (TestApp.request) refuses what the document does not say. */
describe('the OpenAPI conformance check of the tests', () => {
  const correlation = { 'x-correlation-id': '0f8fad5b-d9cb-469f-a165-70867728950e', 'cache-control': 'no-store' };
  const medio = {
    id: 7,
    codigo: 'DIARIO',
    nombre: 'Diario',
    activo: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    headers: { 'content-type': 'application/json; charset=utf-8', ...correlation, ...headers },
    body,
    text: JSON.stringify(body),
  });

  it('accepts an answer the document declares, with its headers and a body of its schema', () => {
    expect(conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json(medio, { etag: '"x"' }) })).toBeUndefined();
    expect(conformanceProblem('GET', '/api/v1/no/such/route', { status: 404, ...json({}) })).toBeUndefined();
  });

  it('refuses an undeclared status, a missing declared header, an undeclared content type and a body off its schema', () => {
    expect(conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 418, ...json(medio, { etag: '"x"' }) })).toMatch(/status not declared/);
    expect(conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json(medio) })).toMatch(/declared header\(s\) not sent: ETag/);
    expect(
      conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json(medio, { etag: '"x"', 'content-type': 'text/html' }) }),
    ).toMatch(/content type text\/html not declared/);
    expect(
      conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json(medio, { etag: '"x"', 'cache-control': 'max-age=60' }) }),
    ).toMatch(/header Cache-Control is max-age=60, not one of no-store/);
    expect(conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json({ ...medio, id: 'siete' }, { etag: '"x"' }) })).toMatch(
      /body does not match its schema: \/id must be integer/,
    );
    expect(conformanceProblem('GET', '/api/v1/admin/medios/7', { status: 200, ...json({ id: 7 }, { etag: '"x"' }) })).toMatch(
      /must have required property/,
    );
  });
});
