import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestApp } from '../support/test-app.js';

/** Fail-closed: if the audit record cannot be written, the change is not kept — proven through HTTP. */
describe('medios fail-closed audit', () => {
  let t: TestApp;
  beforeAll(async () => (t = await TestApp.create()));
  afterAll(() => t.close());

  it('answers a failed audit insert on POST /api/v1/admin/medios with a 500 problem document and keeps no medio', async () => {
    const token = await t.adminToken();
    const restore = await t.makeInsertsFail('audit_events', 'audit store unavailable');
    let res;
    try {
      res = await t.post('/api/v1/admin/medios', { codigo: 'FAIL_CLOSED', nombre: 'No debe quedar' }, { token });
    } finally {
      await restore();
    }
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 500, code: 'error_interno', correlationId: res.headers['x-correlation-id'] });
    expect(res.text).not.toMatch(/audit store unavailable|INSERT|audit_events/);
    expect(await t.query(`SELECT id FROM medios WHERE codigo = 'FAIL_CLOSED'`)).toHaveLength(0);

    // with the store back, the same request succeeds: nothing half-written blocks it
    const retry = await t.post('/api/v1/admin/medios', { codigo: 'FAIL_CLOSED', nombre: 'Ahora sí' }, { token });
    expect(retry.status).toBe(201);
    expect(await t.auditEvents({ action: 'medio.create', targetId: String(retry.body.id) })).toHaveLength(1);
  });
});
