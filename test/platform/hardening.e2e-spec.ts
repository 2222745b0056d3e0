import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { TokenForge } from '../auth/support/auth-helpers.js';
import { type CreatedUser, expectProblem, TestApp } from '../support/test-app.js';

/** Sends raw bytes to the listening server and answers everything it writes back. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
const headerOf = (answer: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(answer)?.[1]?.trim();

describe('hardening: tokens, caching, strength, transport errors', () => {
  let t: TestApp, admin: string;
  let user: CreatedUser;
  let forge: TokenForge;

  beforeAll(async () => {
    ({ t, admin } = await TestApp.withAdmin());
    user = await t.createUser('supervisor');
    forge = new TokenForge(t);
  });
  afterAll(() => t.close());

  describe('access tokens', () => {
    it('refuses a validly signed token whose header carries crit with 401', async () => {
      const claims = forge.claims({ id: user.id, username: user.username, rol: 'supervisor', token: user.token });
      expect((await t.get('/api/v1/auth/me', { token: forge.rs256(claims) })).status).toBe(200);
      expectProblem(await t.get('/api/v1/auth/me', { token: forge.rs256(claims, { header: { crit: ['b64'], b64: true } }) }), 401, 'no_autenticado');
    });

    it('refuses a validly signed token whose claims are not a JSON object with 401, never 500', async () => {
      for (const claims of [null, [], 'x', 1]) {
        const token = forge.rs256(claims);
        expectProblem(await t.get('/api/v1/auth/me', { token }), 401, 'no_autenticado');
        expectProblem(await t.post('/api/v1/auth/logout', undefined, { token }), 401, 'no_autenticado');
        expectProblem(await t.post('/api/v1/auth/refresh', { accessToken: token, refreshToken: 'x'.repeat(43) }), 401, 'refresh_invalido');
      }
    });

    it('says how to authenticate on the 401 of a missing or invalid token (WWW-Authenticate: Bearer), not on a refused sign-in', async () => {
      for (const res of [
        await t.get('/api/v1/auth/me'),
        await t.get('/api/v1/auth/me', { token: 'x.y.z' }),
        await t.get('/api/v1/admin/fiscal/tipos-iva'),
      ]) {
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="medios-admin-api"');
      }
      const login = await t.post('/api/v1/auth/login', { username: user.username, password: 'Not-The-Password-123' });
      expect(login.status).toBe(401);
      expect(login.headers['www-authenticate']).toBeUndefined();
    });

    it('refuses an Authorization value with anything after the token with 401', async () => {
      expectProblem(await t.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${user.token} junk` } }), 401, 'no_autenticado');
      expectProblem(await t.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${user.token}, Bearer x` } }), 401, 'no_autenticado');
      expect((await t.get('/api/v1/auth/me', { headers: { authorization: `Bearer ${user.token}` } })).status).toBe(200);
    });
  });

  describe('Cache-Control: no-store on every /api/v1 answer', () => {
    it('marks successes carrying tokens or user data, errors and unknown routes alike', async () => {
      const answers = [
        await t.post('/api/v1/auth/login', { username: user.username, password: user.password }),
        await t.get('/api/v1/users', { token: admin }),
        await t.get('/api/v1/users'),
        await t.get('/api/v1/no-such-route', { token: admin }),
        await t.request('POST', '/api/v1/auth/login', { raw: '{"username":' }),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 400]);
      for (const res of answers) expect(res.headers['cache-control']).toBe('no-store');
    });

    it('marks an answer whose URL spells the prefix with %-escapes, which reaches the same route', async () => {
      const login = await t.post('/api/v1/auth/login'.replace('/api/', '/%61pi/'), { username: user.username, password: user.password });
      expect(login.status).toBe(200);
      expect(login.headers['cache-control']).toBe('no-store');
      const read = await t.get('/api/v1/users'.replace('/v1/', '/%761/'), { token: admin });
      expect(read.status).toBe(200);
      expect(read.headers['cache-control']).toBe('no-store');
    });

    it('marks the probes, which report the state of the instant', async () => {
      for (const path of ['/health/live', '/health/ready', '/health/audit']) {
        expect((await t.get(path)).headers['cache-control']).toBe('no-store');
      }
    });

    it('leaves the public keys cacheable', async () => {
      expect((await t.get('/.well-known/jwks.json')).headers['cache-control']).toBe('public, max-age=300');
    });
  });

  describe('while the application closes', () => {
    it('answers a new request with a 503 servicio_no_disponible problem document and closes the connection', async () => {
      const closing = await TestApp.create();
      try {
        closing.app.getHttpAdapter().beforeClose?.();
        const res = await closing.get('/api/v1/auth/me', { token: admin });
        expectProblem(res, 503, 'servicio_no_disponible');
        expect(res.headers['x-correlation-id']).toBe(res.body.correlationId);
        expect(res.headers.connection).toBe('close');
        expect(res.headers['retry-after']).toBe('1');
        expect(res.headers['cache-control']).toBe('no-store');
        // a key set's error is not cacheable as its answer is
        const keys = await closing.get('/.well-known/jwks.json');
        expectProblem(keys, 503, 'servicio_no_disponible');
        expect(keys.headers['cache-control']).toBe('no-store');
      } finally {
        await closing.close();
      }
    });
  });

  describe('password strength (zxcvbn-ts, common and Spanish dictionaries)', () => {
    it.each(['Password12', 'qwertyuiop1', 'aaaaaaaaa1'])('refuses %s with 400 password_debil on create and on change', async (weak) => {
      const username = `s_${Math.random().toString(16).slice(2, 10)}`;
      const create = await t.post(
        '/api/v1/users',
        { username, password: weak, nombre: 'Sara', apellido: 'Lis', email: `${username}@example.test`, rol: 'consulta' },
        { token: admin },
      );
      expectProblem(create, 400, 'password_debil');
      expect(create.text).not.toContain(weak);
      expectProblem(
        await t.put('/api/v1/users/me/password', { currentPassword: user.password, newPassword: weak }, { token: user.token }),
        400,
        'password_debil',
      );
    });

    it("uses the user's own fields as context: a password built on the username is weak for that user only", async () => {
      const username = `marcela_${Math.random().toString(16).slice(2, 6)}`;
      const password = `${username}2024!`;
      const body = { username, password, nombre: 'Marcela', apellido: 'Quiroga', email: `${username}@example.test`, rol: 'consulta' };
      expectProblem(await t.post('/api/v1/users', body, { token: admin }), 400, 'password_debil');
      expect((await t.post('/api/v1/users', { ...body, username: `${username}_x`, email: `x_${body.email}` }, { token: admin })).status).toBe(201);
    });

    it('gives temporary passwords the whole policy accepts: a reset one can be set back as the new password elsewhere', async () => {
      const target = await t.createUser('cajero');
      const reset = await t.post(`/api/v1/users/${target.id}/password-reset`, undefined, { token: admin });
      expect(reset.status).toBe(200);
      const other = await t.createUser('cajero');
      expect(
        (
          await t.put(
            '/api/v1/users/me/password',
            { currentPassword: other.password, newPassword: reset.body.temporaryPassword },
            { token: other.token },
          )
        ).status,
      ).toBe(204);
    });
  });

  describe('what Node’s HTTP parser refuses', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen(0, '127.0.0.1');
      port = (t.app.getHttpServer().address() as { port: number }).port;
    });

    it('answers a garbage request line with a 400 problem document carrying X-Correlation-Id and no-store', async () => {
      const answer = await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(headerOf(answer, 'content-type')).toContain('application/problem+json');
      expect(headerOf(answer, 'cache-control')).toBe('no-store');
      const correlationId = headerOf(answer, 'x-correlation-id');
      expect(correlationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(bodyOf(answer)).toMatchObject({ type: 'about:blank', status: 400, code: 'validacion', correlationId });
    });

    it('answers headers over the size limit with a 431 problem document carrying X-Correlation-Id', async () => {
      const answer = await rawExchange(port, `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40 * 1024)}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(headerOf(answer, 'x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(bodyOf(answer)).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
    });

    it('answers what it refuses on a fiscal route in the fiscal shape, and names the path it read', async () => {
      const framing = await rawExchange(
        port,
        'POST /api/v1/admin/fiscal/tipos-iva HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      );
      expect(framing).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(framing)).toEqual({ error: 'validacion', message: expect.any(String) });
      const oversized = await rawExchange(
        port,
        `GET /api/v1/admin/fiscal/tipos-iva?x=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      );
      expect(oversized).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(oversized)).toEqual({ error: 'validacion', message: expect.any(String) });
      const elsewhere = await rawExchange(port, `GET /api/v1/auth/me?x=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
      expect(bodyOf(elsewhere)).toMatchObject({ status: 431, instance: '/api/v1/auth/me' });
    });

    it('answers an HTTP/1.1 request without Host with a 400 problem document carrying the service headers', async () => {
      const mine = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
      const answer = await rawExchange(port, `GET /health/live HTTP/1.1\r\nX-Correlation-Id: ${mine}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(headerOf(answer, 'content-type')).toContain('application/problem+json');
      expect(headerOf(answer, 'x-correlation-id')).toBe(mine);
      expect(headerOf(answer, 'x-content-type-options')).toBe('nosniff');
      expect(bodyOf(answer)).toMatchObject({ status: 400, code: 'validacion', instance: '/health/live', correlationId: mine });
    });

    it('answers a repeated Host, Authorization or Content-Type, and a Host that is no host, with a 400 problem document', async () => {
      const refused = [
        'GET /health/live HTTP/1.1\r\nHost: a\r\nhost: b\r\nConnection: close\r\n\r\n',
        `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n`,
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
        'GET /health/live HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n',
        'GET /health/live HTTP/1.1\r\nHost: a/b@c\r\nConnection: close\r\n\r\n',
        // a port beyond 65535, a bracketed literal that is no IPv6 address
        ...['a:65536', 'a:999999', '[zz]', '[::1]:70000', '[1:2]'].map(
          (host) => `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ),
      ];
      for (const request of refused) {
        const answer = await rawExchange(port, request);
        expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        expect(headerOf(answer, 'x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(bodyOf(answer)).toMatchObject({ status: 400, code: 'validacion' });
      }
      for (const host of [
        '127.0.0.1:80',
        '[::1]:3000',
        '[::ffff:10.0.0.1]:65535',
        '[fe80::1%25eth0]:3000',
        '[v1.x]',
        'admin-api.medios.svc.cluster.local',
        'xn--and-6ma2c.example',
        '',
      ]) {
        expect(await rawExchange(port, `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
      }
    });

    it('answers a request read whole before the bytes after it that are no request: its own answer first, then the 400', async () => {
      const body = JSON.stringify({ codigo: 'PIPELINED_1', nombre: 'Seguido de basura' });
      const answer = await rawExchange(
        port,
        `POST /api/v1/admin/medios HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}GARBAGE\r\n\r\n`,
      );
      // the change went through, and its answer says so
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      const second = answer.indexOf('HTTP/1.1 400 ');
      expect(second).toBeGreaterThan(0);
      const created = answer.slice(0, second);
      const refused = answer.slice(second);
      expect(bodyOf(created)).toMatchObject({ codigo: 'PIPELINED_1' });
      expect(bodyOf(refused)).toMatchObject({ status: 400, code: 'validacion' });
      expect(headerOf(refused, 'x-correlation-id')).not.toBe(headerOf(created, 'x-correlation-id'));
      const { id } = bodyOf(created) as { id: number };
      expect((await t.get(`/api/v1/admin/medios/${id}`, { token: admin })).body).toMatchObject({ codigo: 'PIPELINED_1' });
    });

    it('answers a request-target holding a # (a fragment is never sent) with 400, instead of reading what follows as the query', async () => {
      const answer = await rawExchange(
        port,
        `GET /api/v1/users#pageSize=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(answer)).toMatchObject({ status: 400, code: 'validacion' });
    });

    it('reads a User-Agent sent in UTF-8 as the text it is: the session shows ñ, not Ã±', async () => {
      const someone = await t.createUser('cajero');
      const body = JSON.stringify({ username: someone.username, password: someone.password });
      const answer = await rawExchange(
        port,
        `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nUser-Agent: Consola Ñandú/1.0 ✓\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      const sessions = await t.get('/api/v1/auth/sessions', { token: bodyOf(answer).accessToken as string });
      expect(sessions.body.map((s: { userAgent: string }) => s.userAgent)).toContain('Consola Ñandú/1.0 ✓');
    });

    it('serves an HTTP/1.0 request without Host, which needs none', async () => {
      const answer = await rawExchange(port, 'GET /health/live HTTP/1.0\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    });
  });
});
