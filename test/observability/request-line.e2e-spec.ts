import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { connect } from 'node:net';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { AppMetrics } from '../../src/observability/metrics.js';
import { requestLineLogger } from '../../src/observability/request-telemetry.js';
import { TestApp } from '../support/test-app.js';

/**
 * The one `info` line of each request (docs/operations.md, "One info line per request"), read from
 * the request line's logger of a listening application running with LOG_LEVEL=info; the lines are
 * captured, not written. Requests go over real connections: fastify's inject ends its responses in
 * a way the abandoned-request watch also takes for a client that went away.
 */
describe('the request log line', () => {
  let t: TestApp;
  let lines: Array<Record<string, unknown>>;
  let port: number;

  beforeAll(async () => {
    ({ t } = await TestApp.withAdmin({ env: { LOG_LEVEL: 'info' } }));
    const line = requestLineLogger(PinoLogger.root as Logger);
    jest.spyOn(line, 'info').mockImplementation(((fields: Record<string, unknown>, msg: string) => {
      lines.push({ ...fields, msg });
    }) as never);
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  beforeEach(() => {
    lines = [];
  });
  afterAll(() => t.close());

  /** A request over a connection: its status, error code and the correlation id it was answered with. */
  const call = async (method: string, path: string, token: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const body = res.status >= 400 ? ((await res.json()) as { code?: string }) : await res.text();
    return {
      status: res.status,
      code: typeof body === 'object' ? body.code : undefined,
      correlationId: res.headers.get('x-correlation-id') ?? undefined,
    };
  };
  const lineOf = (correlationId: string | undefined) => {
    const found = lines.filter((l) => l.correlationId === correlationId);
    expect(found).toHaveLength(1);
    return found[0];
  };

  it("names the authenticated caller as actorId, also when the caller lacks the route's permission (403)", async () => {
    const consulta = await t.createUser('consulta');
    const own = await call('GET', '/api/v1/auth/me', consulta.token);
    expect(own.status).toBe(200);
    expect(lineOf(own.correlationId)).toMatchObject({ msg: 'request completed', route: '/api/v1/auth/me', status: 200, actorId: consulta.id });
    const denied = await call('GET', '/api/v1/users', consulta.token);
    expect(denied).toMatchObject({ status: 403, code: 'permiso_denegado' });
    expect(lineOf(denied.correlationId)).toMatchObject({ route: '/api/v1/users', status: 403, actorId: consulta.id });
  });

  it('has actorId null for a verified token whose session has ended (401 after logout)', async () => {
    const user = await t.createUser('cajero');
    expect((await call('POST', '/api/v1/auth/logout', user.token)).status).toBe(204);
    const refused = await call('GET', '/api/v1/auth/me', user.token);
    expect(refused).toMatchObject({ status: 401, code: 'no_autenticado' });
    expect(lineOf(refused.correlationId)).toMatchObject({ msg: 'request completed', route: '/api/v1/auth/me', status: 401, actorId: null });
  });

  it('has actorId null for a verified token of a deactivated user (401)', async () => {
    const user = await t.createUser('cajero');
    await t.query('UPDATE users SET activo = $1 WHERE id = $2', [false, user.id]);
    const refused = await call('GET', '/api/v1/auth/me', user.token);
    expect(refused).toMatchObject({ status: 401, code: 'no_autenticado' });
    expect(lineOf(refused.correlationId)).toMatchObject({ route: '/api/v1/auth/me', status: 401, actorId: null });
  });

  /** Writes `request` on a new connection and resolves with everything answered until the server closes it. */
  const rawExchange = (request: string) =>
    new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });

  it('logs and measures an HTTP/1.1 request without Host, answered 400 by the service', async () => {
    const answer = await rawExchange('GET /api/v1/roles HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const correlationId = /^x-correlation-id: (.*)$/im.exec(answer)?.[1]?.trim();
    expect(lineOf(correlationId)).toMatchObject({ msg: 'request completed', method: 'GET', route: '/api/v1/roles', status: 400, actorId: null });
    const measured = await t.app.get(AppMetrics).httpDuration.get();
    const sample = measured.values.find(
      (v) =>
        v.metricName === 'http_server_request_duration_seconds_count' &&
        v.labels.http_route === '/api/v1/roles' &&
        v.labels.http_response_status_code === 400,
    );
    expect(sample?.value).toBe(1);
  });

  it("logs and measures what Node's parser refuses before there is a request: no method, route or actor", async () => {
    const refused = [
      { request: 'THIS IS NOT HTTP\r\n\r\n', status: 400, msg: 'request refused: malformed HTTP request' },
      {
        request: `GET /api/v1/roles HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40 * 1024)}\r\n\r\n`,
        status: 431,
        msg: 'request refused: headers too large',
      },
      {
        request: 'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        status: 400,
        msg: 'request refused: malformed HTTP request',
      },
    ];
    const before = await t.app.get(AppMetrics).httpDuration.get();
    const countOf = (measured: typeof before, status: number) =>
      measured.values.find(
        (v) =>
          v.metricName === 'http_server_request_duration_seconds_count' &&
          v.labels.http_request_method === '_OTHER' &&
          v.labels.http_route === 'unmatched' &&
          v.labels.http_response_status_code === status,
      )?.value ?? 0;
    for (const { request, status, msg } of refused) {
      const answer = await rawExchange(request);
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const correlationId = /^x-correlation-id: (.*)$/im.exec(answer)?.[1]?.trim();
      expect(lineOf(correlationId)).toEqual({ correlationId, msg, method: null, route: null, status, durationMs: 0, actorId: null });
    }
    const after = await t.app.get(AppMetrics).httpDuration.get();
    expect(countOf(after, 400) - countOf(before, 400)).toBe(2);
    expect(countOf(after, 431) - countOf(before, 431)).toBe(1);
  });

  it('logs and measures the 417 of an Expect other than 100-continue, answered before fastify sees the request', async () => {
    const mine = '2f8fad5b-d9cb-469f-a165-70867728950e';
    const answer = await rawExchange(
      `GET /api/v1/roles HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nX-Correlation-Id: ${mine}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 417 /);
    expect(lineOf(mine)).toEqual({
      correlationId: mine,
      msg: 'request refused: an expectation other than 100-continue',
      method: null,
      route: null,
      status: 417,
      durationMs: 0,
      actorId: null,
    });
    const measured = await t.app.get(AppMetrics).httpDuration.get();
    expect(
      measured.values.find(
        (v) =>
          v.metricName === 'http_server_request_duration_seconds_count' &&
          v.labels.http_response_status_code === 417 &&
          v.labels.http_route === 'unmatched',
      )?.value,
    ).toBe(1);
  });

  it('measures a method outside the usual ones as _OTHER, so a client sending them all cannot multiply the series', async () => {
    for (const method of ['PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE']) {
      const answer = await rawExchange(`${method} /api/v1/roles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 [45]\d\d /);
    }
    const measured = await t.app.get(AppMetrics).httpDuration.get();
    const methods = new Set(measured.values.map((v) => v.labels.http_request_method));
    for (const method of ['PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'PURGE']) expect(methods.has(method)).toBe(false);
    expect(methods.has('_OTHER')).toBe(true);
  });
});
