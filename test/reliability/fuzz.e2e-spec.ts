import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcrypt';
import fc from 'fast-check';
import { ADMIN_PASSWORD } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { Fixtures } from './support/fixtures.js';
import { type AuthKind, type FuzzRequest, type KnownData, requestFor } from './support/fuzz.js';
import { type Operation, openApiOf, operationsOf } from './support/openapi.js';
import { LEAK_PATTERNS, ReliabilityApp, errorShapeProblems } from './support/reliability-app.js';

/**
 * OpenAPI-driven fuzzing of every operation with fast-check, in-process (fastify inject), as the
 * restricted database role. Seeded and reproducible: the seed is printed (and recorded); replay a
 * run with FUZZ_SEED=<seed>, one operation with FUZZ_ONLY='<METHOD path>' (substring), more
 * requests with FUZZ_RUNS=<total> (default 20,000, the CI profile). The generated requests depend
 * on the seed alone; FUZZ_CONCURRENCY=1 (default 8) also replays their order against the store.
 *
 * Invariants on every answer: no 5xx; an error body in its module's shape (problem+json, or
 * `{error, message}` under /api/v1/admin/fiscal); no stack trace, SQL text or secret in any body;
 * an X-Correlation-Id header.
 */
const TOTAL = Number(process.env.FUZZ_RUNS ?? 20_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const ONLY = process.env.FUZZ_ONLY;
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Failure {
  operation: string;
  index: number;
  request: string;
  status: number;
  problems: string[];
  body: string;
}

describe('OpenAPI-driven fuzzing of every operation (fast-check)', () => {
  let r: ReliabilityApp;
  let operations: Operation[];
  let known: KnownData;
  const tokens: Record<AuthKind, string | undefined> = { admin: undefined, none: undefined, cajero: undefined, garbage: undefined };
  const credentials: Record<'admin' | 'cajero', [string, string]> = { admin: ['', ''], cajero: ['', ''] };
  let secrets: Array<[string, string]>;

  beforeAll(async () => {
    // The fuzzer sends thousands of failed sign-ins and password changes from one IP: with the
    // production limits its own callers would be throttled and could not sign in again after a
    // generated logout. Throttling has its own tests; here it must not hide the other answers.
    r = await ReliabilityApp.create({
      DB_POOL_SIZE: '10',
      JWT_ACCESS_TTL_SECONDS: '86400',
      LOGIN_MAX_FAILURES_PER_USER: '10000',
      LOGIN_MAX_FAILURES_PER_IP: '100000',
      LOGIN_MAX_FAILURES_PER_USER_GLOBAL: '100000',
    });
    operations = operationsOf(openApiOf(r.t.app)).filter((o) => !ONLY || o.key.includes(ONLY));
    const f = await Fixtures.for(r.t);
    const ids: Record<string, number[]> = {};
    const add = (names: string[], id: number) => {
      for (const n of [...names, 'id']) (ids[n] ??= []).push(id);
    };
    for (let i = 0; i < 3; i++) {
      const medio = await f.medio(i !== 2);
      add(['medios', 'medioId'], medio.id);
      add(['secciones'], (await f.seccion(i !== 1, i === 2 ? undefined : medio.id)).id);
      add(['puntos-de-venta'], (await f.puntoDeVenta(i !== 1, i === 2 ? undefined : medio.id)).id);
      add(['tipos-iva'], (await f.tipoIva(i !== 1)).id);
      add(['ingresos-brutos'], (await f.ingresosBrutos(i !== 1)).id);
      const rubro = await f.rubro();
      add(['rubros', 'rubroId', 'parentId'], rubro.id);
      add(['rubros', 'rubroId', 'parentId'], (await f.rubro(i !== 1, rubro.id)).id);
      const product = await f.product(i !== 1);
      add(['rubros', 'rubroId', 'parentId'], product.rubroId);
      add(['product-types', 'productTypeId'], product.productTypeId);
      add(['products', 'productId'], product.id);
      if (i !== 1) add(['priceId'], (await f.price(product.id, 5 + i)).id);
      const user = await f.user(i !== 1);
      add(['users', 'actorUserId'], user.id);
      await f.role(i !== 1);
    }
    add(['users', 'actorUserId'], 1);
    await r.ownerQuery('INSERT INTO avisos (rubro_id) VALUES ($1)', [ids.rubroId![0]]);
    const roles = await r.t.get('/api/v1/roles', { token: f.token, query: { incluirInactivos: true } });
    const permisos = await r.t.get('/api/v1/permisos', { token: f.token });
    known = {
      ids,
      roleCodes: roles.body.map((x: { codigo: string }) => x.codigo),
      permissionCodes: permisos.body.map((x: { codigo: string }) => x.codigo),
      usernames: ['admin'],
      passwords: [ADMIN_PASSWORD],
    };

    const cajero = await r.t.createUser('cajero');
    tokens.admin = await fuzzRoot(r, known.permissionCodes);
    tokens.cajero = cajero.token;
    credentials.cajero = [cajero.username, cajero.password];
    credentials.admin = ['fuzz.root', ROOT_PASSWORD];
    tokens.garbage = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.';
    const dbPassword = decodeURIComponent(new URL(process.env.TEST_SERVER_URL ?? 'postgres://x@y').password);
    const keyLines = (r.t.config.jwt.privateKeyPem ?? '').split('\n').filter((l) => l.length > 40);
    secrets = [
      ['the admin password', ADMIN_PASSWORD],
      ['the fuzz caller password', ROOT_PASSWORD],
      ['the cajero password', cajero.password],
      ['the cajero refresh token', cajero.refreshToken],
      ['a line of the JWT private key', keyLines[Math.floor(keyLines.length / 2)] ?? '-----BEGIN PRIVATE KEY-----\n'],
      ...(dbPassword ? [['the database password', dbPassword] as [string, string]] : []),
    ];
  });
  /**
   * A caller's token after a generated sign-out. The generated requests may also have reached the
   * cajero itself (an id drawn at random can be its own: deactivated, or its password reset by the
   * fuzz caller): then a new cajero takes its place, and its secrets join those searched for.
   */
  async function signInAgain(kind: 'admin' | 'cajero'): Promise<string> {
    const res = await r.t.post('/api/v1/auth/login', { username: credentials[kind][0], password: credentials[kind][1] });
    if (res.status === 200) return res.body.accessToken as string;
    if (kind === 'admin') throw new Error(`the fuzz caller cannot sign in again: ${res.status} ${res.text}`);
    const cajero = await r.t.createUser('cajero');
    credentials.cajero = [cajero.username, cajero.password];
    secrets.push(['a cajero password', cajero.password], ['a cajero refresh token', cajero.refreshToken]);
    return cajero.token;
  }
  afterAll(async () => {
    await r?.close();
  });

  it("answers every generated request without a 5xx, with an error body in its module's shape, no stack trace, SQL or secret, and an X-Correlation-Id", async () => {
    const perOperation = Math.ceil(TOTAL / operations.length);
    const queue: Array<{ op: Operation; index: number; req: FuzzRequest }> = [];
    // one seed per operation, from the run's seed and the operation's name: FUZZ_ONLY replays it alike
    const samples = operations.map((op) => fc.sample(requestFor(op, known), { seed: seedOf(op.key), numRuns: perOperation }));
    // interleaved, so every operation is tried early too (before the run's own writes — a role
    // change, a permission override — may have taken the admin's rights on it away)
    for (let index = 0; index < perOperation; index++) operations.forEach((op, i) => queue.push({ op, index, req: samples[i]![index]! }));

    const failures: Failure[] = [];
    const statuses: Record<string, number> = {};
    const byKind: Record<string, number> = {};
    const handled = new Map<string, number>(); // operation → 2xx answers (the handler ran to the end)
    let sent = 0;
    let serverErrors = 0;
    const started = Date.now();

    const run = async ({ op, index, req }: (typeof queue)[number]) => {
      const headers = { ...req.headers };
      const token = tokens[req.auth];
      if (token) headers.authorization = `Bearer ${token}`;
      else if (req.auth === 'garbage') headers.authorization = 'Basic YWRtaW46YWRtaW4=';
      let res;
      try {
        res = await r.t.app.inject({ method: req.method, url: req.url, query: req.query, headers, payload: req.payload });
      } catch (err) {
        failures.push({
          operation: op.key,
          index,
          request: describeRequest(req),
          status: 0,
          problems: [`inject threw: ${(err as Error).message}`],
          body: '',
        });
        return;
      }
      sent++;
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      byKind[req.kind] = (byKind[req.kind] ?? 0) + 1;
      if (res.statusCode < 300) handled.set(op.key, (handled.get(op.key) ?? 0) + 1);
      // a sign-out ends the caller's sessions and its access token with them: sign in again
      if (op.key === 'POST /api/v1/auth/logout' && res.statusCode === 204 && (req.auth === 'admin' || req.auth === 'cajero')) {
        tokens[req.auth] = await signInAgain(req.auth);
      }
      const problems: string[] = [];
      if (res.statusCode >= 500) {
        serverErrors++;
        problems.push(`a ${res.statusCode}`);
      }
      const correlation = res.headers['x-correlation-id'];
      if (typeof correlation !== 'string' || !GUID.test(correlation)) problems.push('no X-Correlation-Id GUID');
      let body: unknown = undefined;
      try {
        body = res.body ? JSON.parse(res.body) : undefined;
      } catch {
        /* checked below */
      }
      const path = req.url.split('?')[0]!;
      if (res.statusCode >= 400) {
        problems.push(...errorShapeProblems(decodeSafe(path), { status: res.statusCode, body, headers: res.headers as never, text: res.body }));
        const sentText = `${req.url} ${JSON.stringify(req.query)} ${req.payload ?? ''}`;
        for (const [what, pattern] of LEAK_PATTERNS) {
          const m = pattern.exec(res.body);
          if (m && !sentText.includes(m[0])) problems.push(`${what} in the body: ${m[0]}`);
        }
      }
      for (const [what, secret] of secrets) if (secret && res.body.includes(secret)) problems.push(`${what} in the body`);
      if (token && token !== tokens.garbage && res.body.includes(token)) problems.push("the caller's access token in the body");
      if (problems.length && failures.length < 200) {
        failures.push({ operation: op.key, index, request: describeRequest(req), status: res.statusCode, problems, body: res.body.slice(0, 300) });
      }
    };

    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < queue.length) await run(queue[next++]!);
      }),
    );
    const seconds = (Date.now() - started) / 1000;

    const unreached = operations.filter((o) => !handled.get(o.key)).map((o) => o.key);
    recordFigures('fuzz', `fuzz: ${sent} requests, ${serverErrors} 5xx (seed ${SEED})`, {
      seed: SEED,
      requests: sent,
      operations: operations.length,
      perOperation,
      serverErrors,
      invariantFailures: failures.length,
      seconds: Math.round(seconds),
      requestsPerSecond: Math.round(sent / seconds),
      statuses,
      byKind,
      operationsReachedWith2xx: operations.length - unreached.length,
      operationsNeverAnswered2xx: unreached,
      failures: failures.slice(0, 50),
    });
    if (failures.length) {
      process.stdout.write(
        `\nfuzz failed with seed ${SEED}; replay: FUZZ_SEED=${SEED} npm run test:reliability -- test/reliability/fuzz.e2e-spec.ts\n`,
      );
      for (const f of failures.slice(0, 20)) process.stdout.write(`${JSON.stringify(f)}\n`);
    }
    expect({ seed: SEED, failures: failures.slice(0, 10) }).toEqual({ seed: SEED, failures: [] });
    expect(sent).toBeGreaterThanOrEqual(Math.min(TOTAL, 20_000));
  });
});

const ROOT_ID = 1_999_999_999;
const ROOT_PASSWORD = 'Fuzz-Root-Password-1';

/**
 * The caller of the authenticated requests: every permission, granted by its own overrides, under
 * an id no generator produces. The run's own writes (a role change, a permission override, a
 * deactivation — of the bootstrap admin too, once another user holds its rights) would otherwise
 * take the caller's rights away mid-run and leave most operations answering 401/403.
 */
async function fuzzRoot(r: ReliabilityApp, permissions: string[]): Promise<string> {
  const hash = await bcrypt.hash(ROOT_PASSWORD, 4);
  await r.ownerQuery(
    `INSERT INTO users (id, username, password_hash, nombre, apellido, email, role_id, activo, must_change_password, permission_overrides)
     SELECT $1, 'fuzz.root', $2, 'Fuzz', 'Root', 'fuzz.root@example.test', id, true, false, $3 FROM roles WHERE codigo = 'consulta'`,
    [ROOT_ID, hash, JSON.stringify({ granted: permissions, denied: [] })],
  );
  return (await r.t.login('fuzz.root', ROOT_PASSWORD)).accessToken;
}

function seedOf(key: string): number {
  let h = SEED | 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return h;
}

function describeRequest(req: FuzzRequest): string {
  const query = req.query && Object.keys(req.query).length ? `?${new URLSearchParams(req.query as Record<string, string>).toString()}` : '';
  const payload =
    req.payload === undefined ? '' : ` ${req.payload.length > 300 ? `${req.payload.slice(0, 300)}…(${req.payload.length} chars)` : req.payload}`;
  return `${req.method} ${req.url}${query} [auth ${req.auth}] ${JSON.stringify(req.headers)}${payload}`;
}

function decodeSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
