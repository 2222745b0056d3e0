import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import type { DataSource } from 'typeorm';
import { freePort } from '../support/free-port.js';
import { recordFigures } from './support/figures.js';
import { adminLogin, ensureBuilt, type RunningServer, scratchDatabase, startServer } from './support/built-server.js';

/**
 * Clients that never finish a request hold no connection for long: the built server with
 * REQUEST_TIMEOUT_MS=2000, and 40 connections that send a request's headers and the first byte of
 * a 100-byte body, then nothing (and 10 that stop in the middle of their headers). Each is answered
 * 408 in the problem shape with a correlation id and closed, and the liveness probe answers
 * throughout. Before, a body that never finished kept its connection open for good: enough of them
 * used up the process's file descriptors and the service refused every connection.
 */

interface Stalled {
  status: number | undefined;
  head: string;
  body: string;
  closedAfterMs: number | undefined;
}

/** Sends `prefix` on a new connection and waits (at most `giveUpMs`) for the server to close it. */
function stall(port: number, prefix: string, giveUpMs: number): Promise<Stalled> {
  return new Promise((done) => {
    const started = performance.now();
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(prefix));
    const finish = (closedAfterMs: number | undefined) => {
      clearTimeout(timer);
      const [head = '', body = ''] = received.split('\r\n\r\n');
      done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]) || undefined, head, body, closedAfterMs });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      finish(undefined);
    }, giveUpMs);
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(performance.now() - started));
  });
}

describe('clients below the router: unfinished requests, unmet expectations, clients that hang up', () => {
  let db: { drop: () => Promise<void>; url: string; owner: DataSource };
  let server: RunningServer | undefined;
  let metricsPort: number;

  beforeAll(async () => {
    db = await scratchDatabase('slow-clients');
    metricsPort = await freePort();
    server = await startServer(ensureBuilt(), db.url, 'slow-clients', { REQUEST_TIMEOUT_MS: '2000', METRICS_PORT: String(metricsPort) });
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  it('answers 408 to unfinished bodies and headers, closes their connections, and keeps serving others', async () => {
    const port = server!.port;
    const unfinishedBody = 'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{';
    const unfinishedHeaders = 'GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer';
    // well past the timeout and Node's check interval: a connection still open then is held for good
    const giveUpMs = 20_000;
    const stalled = Promise.all([
      ...Array.from({ length: 40 }, () => stall(port, unfinishedBody, giveUpMs)),
      ...Array.from({ length: 10 }, () => stall(port, unfinishedHeaders, giveUpMs)),
    ]);
    const live: number[] = [];
    let settled = false;
    void stalled.finally(() => (settled = true));
    while (!settled) {
      live.push((await fetch(`http://127.0.0.1:${port}/health/live`)).status);
      await new Promise((r) => setTimeout(r, 200));
    }
    const answers = await stalled;

    const stillOpen = answers.filter((a) => a.closedAfterMs === undefined).length;
    const closed = answers.flatMap((a) => (a.closedAfterMs === undefined ? [] : [Math.round(a.closedAfterMs)]));
    const figures = {
      requestTimeoutMs: 2000,
      unfinished: answers.length,
      answered408: answers.filter((a) => a.status === 408).length,
      stillOpen,
      closedAfterMs: { min: Math.min(...closed), max: Math.max(...closed) },
      liveProbes: live.length,
      liveFailures: live.filter((s) => s !== 200).length,
    };
    recordFigures(
      'slow-clients',
      `slow clients: ${figures.unfinished} unfinished requests, ${figures.answered408} answered 408, ${stillOpen} still open after ${giveUpMs / 1000} s; closed after ${figures.closedAfterMs.min}–${figures.closedAfterMs.max} ms; ${figures.liveProbes} liveness probes meanwhile, ${figures.liveFailures} not 200`,
      figures,
    );
    expect(stillOpen).toBe(0);
    // an unfinished body's answer names the request fastify began and logged; unfinished headers never made one
    // the server's lines reach this process through a pipe: they may trail the closed connections
    const timedOutLinesNow = () =>
      server!
        .output()
        .split('\n')
        .filter((l) => l.includes('"request timed out"'))
        .map((l) => (JSON.parse(l) as { correlationId: string }).correlationId);
    for (let i = 0; i < 50 && timedOutLinesNow().length < 50; i++) await new Promise((r) => setTimeout(r, 100));
    const timedOutLines = timedOutLinesNow();
    // unfinished headers have a line too, with no route
    expect(timedOutLines).toHaveLength(50);
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(408);
      expect(answer.head).toMatch(/\r\nx-correlation-id: [0-9a-f-]{36}\r\n/i);
      expect(answer.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
      const problem = JSON.parse(answer.body) as { correlationId: string };
      // the path of the request fastify began; unfinished headers have none to name
      expect(problem).toMatchObject({ status: 408, title: 'Request Timeout', instance: i < 40 ? '/api/v1/auth/login' : '' });
      expect(timedOutLines).toContain(problem.correlationId);
    });
    expect(live.length).toBeGreaterThan(0);
    expect(live.every((s) => s === 200)).toBe(true);
  });

  it("answers an Expect it cannot meet with the service's 417, not Node's bare one", async () => {
    const mine = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const answer = await stall(server!.port, `GET /api/v1/roles HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nX-Correlation-Id: ${mine}\r\n\r\n`, 20_000);
    expect(answer.status).toBe(417);
    expect(answer.head).toMatch(new RegExp(`\r\nx-correlation-id: ${mine}(\r\n|$)`, 'i'));
    expect(answer.head).toMatch(/\r\ncache-control: no-store(\r\n|$)/i);
    expect(answer.head).toMatch(/\r\nx-content-type-options: nosniff(\r\n|$)/i);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 417, instance: '/api/v1/roles', correlationId: mine });
  });

  it('answers CONNECT with the 404 of a method no route takes, in the shape of the path it names, instead of closing the connection unanswered', async () => {
    const mine = '1f8fad5b-d9cb-469f-a165-70867728950e';
    const answer = await stall(server!.port, `CONNECT /api/v1/roles HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: ${mine}\r\n\r\n`, 5_000);
    expect(answer.status).toBe(404);
    expect(answer.closedAfterMs).toBeDefined();
    expect(answer.head).toMatch(new RegExp(`\r\nx-correlation-id: ${mine}(\r\n|$)`, 'i'));
    expect(answer.head).toMatch(/\r\ncache-control: no-store(\r\n|$)/i);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 404, code: 'no_encontrado', instance: '/api/v1/roles', correlationId: mine });
    const fiscal = await stall(server!.port, 'CONNECT /api/v1/admin/fiscal/tipos-iva HTTP/1.1\r\nHost: x\r\n\r\n', 5_000);
    expect(fiscal.status).toBe(404);
    expect(JSON.parse(fiscal.body)).toEqual({ error: 'no_encontrado', message: expect.any(String) });
    const authority = await stall(server!.port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n', 5_000);
    expect(authority.status).toBe(404);
    expect(JSON.parse(authority.body)).toMatchObject({ code: 'no_encontrado' });
  });

  it('survives a CONNECT whose client resets the connection at once, and closes one whose client keeps its side open', async () => {
    const port = server!.port;
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((done) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('CONNECT /api/v1/roles HTTP/1.1\r\nHost: x\r\n\r\n');
          socket.resetAndDestroy();
          done();
        });
        socket.on('error', () => undefined);
      });
    }
    // a client that reads the answer and never closes its side: the server closes the connection
    const lingering = await new Promise<{ status: number | undefined; closed: boolean }>((done) => {
      let received = '';
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () =>
        socket.write('CONNECT /api/v1/roles HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      // the server's end of the connection: with allowHalfOpen the client's own side stays open
      socket.on('end', () => {
        done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]) || undefined, closed: true });
        socket.destroy();
      });
    });
    expect(lingering).toEqual({ status: 404, closed: true });
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  });

  it('logs and measures a body that breaks the HTTP framing as the 400 it was answered, not as a client that went away', async () => {
    const port = server!.port;
    const badChunk = 'd1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6';
    const answer = await stall(
      port,
      `POST /api/v1/admin/rubros HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: ${badChunk}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
      5_000,
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'validacion', correlationId: badChunk });
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      line = server!
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes(badChunk))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => typeof l.status === 'number');
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    expect(line).toMatchObject({ msg: 'request refused: malformed HTTP framing', method: 'POST', route: '/api/v1/admin/rubros', status: 400 });
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="POST",http_route="\/api\/v1\/admin\/rubros",http_response_status_code="400"\} 1$/m,
    );
    expect(metrics).not.toMatch(/http_route="\/api\/v1\/admin\/rubros",http_response_status_code="499"/);
  });

  it('logs and measures a request whose client goes away (499) and one fastify refuses before routing', async () => {
    const port = server!.port;
    const gone = 'c3a9a0f2-6f0e-4c59-9d1e-3b7f1c2d4e5a';
    const badEscape = '5b0e6c36-7d1c-4e0e-9d64-1d5b4f0f5d12';
    // a client that sends half a body and hangs up: fastify's onResponse never runs for it
    await new Promise<void>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nX-Correlation-Id: ${gone}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => done());
    });
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/roles/%E0%A4%A`, { headers: { 'x-correlation-id': badEscape } })).status).toBe(400);

    // a client that sent its whole body and hangs up while the change waits on a lock: the change
    // still commits once the lock goes, and the request has its one line, as 499
    const sentWhole = 'a3b2c1d0-1e2f-4a5b-8c6d-7e8f9a0b1c2d';
    const { accessToken } = await adminLogin(port);
    const locker = db.owner.createQueryRunner();
    await locker.startTransaction();
    await locker.query('LOCK TABLE medios IN ACCESS EXCLUSIVE MODE');
    try {
      const body = JSON.stringify({ codigo: 'ABANDONADO', nombre: 'Medio abandonado' });
      await new Promise<void>((done) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /api/v1/admin/medios HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\nX-Correlation-Id: ${sentWhole}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          setTimeout(() => socket.destroy(), 500);
        });
        socket.on('close', () => done());
      });
    } finally {
      await locker.rollbackTransaction();
      await locker.release();
    }

    const lineOf = async (correlationId: string) => {
      for (let i = 0; i < 50; i++) {
        const line = server!
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.correlationId === correlationId && typeof l.status === 'number');
        if (line) return line;
        await new Promise((r) => setTimeout(r, 100));
      }
      return undefined;
    };
    expect(await lineOf(gone)).toMatchObject({ msg: 'request aborted by the client', method: 'POST', route: '/api/v1/auth/login', status: 499 });
    expect(await lineOf(badEscape)).toMatchObject({ msg: 'request completed', method: 'GET', route: null, status: 400 });
    expect(await lineOf(sentWhole)).toMatchObject({
      msg: 'request aborted by the client',
      method: 'POST',
      route: '/api/v1/admin/medios',
      status: 499,
    });
    for (let i = 0; i < 50 && (await db.owner.query(`SELECT id FROM medios WHERE codigo = 'ABANDONADO'`)).length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await db.owner.query(`SELECT id FROM medios WHERE codigo = 'ABANDONADO'`)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300)); // its answer, written to a closed connection, leaves no second line
    expect(
      server!
        .output()
        .split('\n')
        .filter((l) => l.includes(sentWhole) && l.includes('"status":')),
    ).toHaveLength(1);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="POST",http_route="\/api\/v1\/auth\/login",http_response_status_code="499"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="POST",http_route="\/api\/v1\/admin\/medios",http_response_status_code="499"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="GET",http_route="unmatched",http_response_status_code="400"\} 1$/m,
    );
    // the 40 unfinished bodies of the first test, answered 408 below fastify
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="POST",http_route="\/api\/v1\/auth\/login",http_response_status_code="408"\} 40$/m,
    );
  });
});
