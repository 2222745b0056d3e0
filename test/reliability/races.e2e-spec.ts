import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PasswordHasher } from '../../src/auth/password-hasher.js';
import { PasswordStrength } from '../../src/users/password-strength.js';
import type { HttpResult } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { Fixtures, PROVINCIAS, argentinaDate, nextAfip, nextTipoIvaCode } from './support/fixtures.js';
import { ReliabilityApp, errorShapeProblems, uid } from './support/reliability-app.js';

/**
 * Every uniqueness and state rule under 20 concurrent identical attempts: exactly one succeeds,
 * the other 19 get the contract's answer (409, or 401 for a refresh token), never a 5xx. The
 * store's unique constraints (or row locks) are the guarantee; the service maps their violation.
 */
const ATTEMPTS = 20;

interface Race {
  rule: string;
  /** the loser's answer: status and code */
  loser: { status: number; code: string };
  /** builds the one request all attempts send */
  request: (f: Fixtures, r: ReliabilityApp) => Promise<{ method: 'POST' | 'PUT'; url: string; body: unknown; token?: string }>;
  /** rows the rule allows afterwards (SELECT count(*) AS n), checked as the owner */
  rows?: (body: any) => { sql: string; params: unknown[] };
}

const RACES: Race[] = [
  {
    rule: 'username is unique (users)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => {
      const username = `race_${uid().toLowerCase()}`;
      return {
        method: 'POST',
        url: '/api/v1/users',
        body: { username, password: `Clave-${uid()}-segura`, nombre: 'R', apellido: 'R', email: `${username}@example.test`, rol: 'cajero' },
      };
    },
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM users WHERE username = $1', params: [b.username] }),
  },
  {
    rule: 'role codigo is unique (roles)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({
      method: 'POST',
      url: '/api/v1/roles',
      body: { codigo: `race_${uid().toLowerCase()}`, nombre: 'Carrera', descripcion: '' },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM roles WHERE codigo = $1', params: [b.codigo] }),
  },
  {
    rule: 'medio codigo is unique (medios)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({ method: 'POST', url: '/api/v1/admin/medios', body: { codigo: `RACE_${uid()}`, nombre: 'Carrera' } }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM medios WHERE codigo = $1', params: [b.codigo] }),
  },
  {
    rule: 'seccion codigo is unique per medio (secciones)',
    loser: { status: 409, code: 'duplicado' },
    request: async (f) => ({
      method: 'POST',
      url: '/api/v1/admin/secciones',
      body: { medioId: (await f.medio()).id, codigo: `RACE_${uid()}`, nombre: 'Carrera', tipo: 'digital' },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM secciones WHERE medio_id = $1 AND codigo = $2', params: [b.medioId, b.codigo] }),
  },
  {
    rule: 'numeroAFIP is unique per medio (puntos de venta)',
    loser: { status: 409, code: 'duplicado' },
    request: async (f) => ({
      method: 'POST',
      url: '/api/v1/admin/puntos-de-venta',
      body: { medioId: (await f.medio()).id, numeroAFIP: nextAfip(), nombre: 'Carrera', domicilio: 'Calle 4' },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM puntos_de_venta WHERE medio_id = $1 AND numero_afip = $2', params: [b.medioId, b.numeroAFIP] }),
  },
  {
    rule: 'TipoDeIva codigo is unique (fiscal)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({
      method: 'POST',
      url: '/api/v1/admin/fiscal/tipos-iva',
      body: { codigo: nextTipoIvaCode(), descripcion: 'Carrera', porcentaje: 21 },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM tipos_iva WHERE codigo = $1', params: [b.codigo] }),
  },
  {
    rule: 'one active IngresosBrutos entry per provincia (fiscal)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({
      method: 'POST',
      url: '/api/v1/admin/fiscal/ingresos-brutos',
      body: { provincia: PROVINCIAS[0], descripcion: 'Carrera', alicuota: 3 },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM ingresos_brutos WHERE provincia = $1 AND activo', params: [b.provincia] }),
  },
  {
    rule: 'product type codigo is unique (product types)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({
      method: 'POST',
      url: '/api/v1/admin/product-types',
      body: { codigo: `RACE_${uid()}`, nombre: 'Carrera', descripcion: '' },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM product_types WHERE codigo = $1', params: [b.codigo] }),
  },
  {
    rule: 'product codigo is unique (products)',
    loser: { status: 409, code: 'duplicado' },
    request: async (f) => ({
      method: 'POST',
      url: '/api/v1/admin/products',
      body: { codigo: `RACE_${uid()}`, nombre: 'Carrera', rubroId: (await f.rubro()).id, productTypeId: (await f.productType()).id },
    }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM products WHERE codigo = $1', params: [b.codigo] }),
  },
  {
    rule: 'active sibling rubro names are unique (rubros under one parent)',
    loser: { status: 409, code: 'duplicado' },
    request: async (f) => ({ method: 'POST', url: '/api/v1/admin/rubros', body: { nombre: `Carrera ${uid()}`, parentId: (await f.rubro()).id } }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM rubros WHERE parent_id = $1 AND lower(nombre) = lower($2)', params: [b.parentId, b.nombre] }),
  },
  {
    rule: 'active root rubro names are unique (rubros without a parent)',
    loser: { status: 409, code: 'duplicado' },
    request: async () => ({ method: 'POST', url: '/api/v1/admin/rubros', body: { nombre: `Raíz carrera ${uid()}`, parentId: null } }),
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM rubros WHERE parent_id IS NULL AND lower(nombre) = lower($1)', params: [b.nombre] }),
  },
  {
    rule: 'one price per date and product, forward-only (prices)',
    loser: { status: 409, code: 'precio_no_posterior' },
    request: async (f) => {
      const p = await f.product();
      return {
        method: 'POST',
        url: `/api/v1/admin/products/${p.id}/prices`,
        body: { productId: p.id, fechaVigencia: argentinaDate(10), monto: 99.99 },
      };
    },
    rows: (b) => ({ sql: 'SELECT count(*) AS n FROM product_prices WHERE product_id = $1', params: [b.productId] }),
  },
  {
    rule: 'a refresh token is used once (refresh rotation)',
    loser: { status: 401, code: 'refresh_invalido' },
    request: async (f) => {
      const user = await f.t.createUser('cajero');
      return { method: 'POST', url: '/api/v1/auth/refresh', body: { accessToken: user.token, refreshToken: user.refreshToken } };
    },
  },
];

interface RaceOutcome {
  rule: string;
  winners: number;
  losers: number;
  serverErrors: number;
  other: string[];
  rows?: number;
  /** the most sessions of the service busy in the database at one time during the burst */
  peakBusySessions: number;
}

describe('races: 20 concurrent attempts on every uniqueness and state rule', () => {
  let r: ReliabilityApp;
  let f: Fixtures;
  const outcomes: RaceOutcome[] = [];

  beforeAll(async () => {
    // a pool larger than the burst: every attempt holds its own connection at the same time
    r = await ReliabilityApp.create({ DB_POOL_SIZE: String(ATTEMPTS + 5) });
    f = await Fixtures.for(r.t);
  });
  afterAll(async () => {
    const held = outcomes.filter(
      (o) => o.winners === 1 && o.losers === ATTEMPTS - 1 && o.serverErrors === 0 && (o.rows === undefined || o.rows === 1),
    ).length;
    const serverErrors = outcomes.reduce((n, o) => n + o.serverErrors, 0);
    if (outcomes.length) {
      recordFigures('races', `races: ${outcomes.length} rules x ${ATTEMPTS} concurrent attempts, ${held} held, ${serverErrors} 5xx`, {
        rules: outcomes.length,
        attemptsPerRule: ATTEMPTS,
        requests: outcomes.length * ATTEMPTS,
        held,
        serverErrors,
        peakBusySessions: Math.max(...outcomes.map((o) => o.peakBusySessions)),
        outcomes,
      });
    }
    await r?.close();
  });

  it.each(RACES.map((race) => [race.rule, race] as const))('%s: one success, 19 of the contract answer, no 5xx', async (_rule, race) => {
    const request = await race.request(f, r);
    const body = { ...(request.body as Record<string, unknown>) };
    if (race.rule.startsWith('one price')) delete body.productId;
    await r.warmPool();
    // evidence of overlap: the most sessions of the app seen busy in the database at once, and
    // the most attempts waiting at once in the password queues. A user's creation estimates the
    // password's strength in one worker thread and hashes it before its short transaction, so its
    // attempts overlap in those queues and may reach the database one after the other; its
    // uniqueness is then decided by the check before the hash (the transaction's check and the
    // unique index stay behind it).
    let polling = true;
    let peak = 0;
    let peakPasswordQueue = 0;
    const hasher = r.t.app.get(PasswordHasher);
    const strength = r.t.app.get(PasswordStrength);
    const poller = (async () => {
      while (polling) {
        peakPasswordQueue = Math.max(peakPasswordQueue, hasher.queueDepth + strength.queueDepth);
        const [row] = await r.ownerQuery(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'medios-admin-api' AND state <> 'idle'`,
        );
        peak = Math.max(peak, Number(row.n));
      }
    })();
    const results: HttpResult[] = await Promise.all(
      Array.from({ length: ATTEMPTS }, () => r.t.request(request.method, request.url, { token: request.token ?? f.token, body })),
    ).finally(() => {
      polling = false;
    });
    await poller;
    const winners = results.filter((x) => x.status >= 200 && x.status < 300);
    const losers = results.filter((x) => x.status === race.loser.status && codeOf(request.url, x) === race.loser.code);
    const other = results.filter((x) => !winners.includes(x) && !losers.includes(x)).map((x) => `${x.status} ${x.text.slice(0, 160)}`);
    const shapes = results.filter((x) => x.status >= 400).flatMap((x) => errorShapeProblems(request.url, x));
    const rows = race.rows ? Number((await r.ownerQuery(race.rows(request.body).sql, race.rows(request.body).params))[0].n) : undefined;
    outcomes.push({
      rule: race.rule,
      winners: winners.length,
      losers: losers.length,
      serverErrors: results.filter((x) => x.status >= 500).length,
      other,
      rows,
      peakBusySessions: peak,
    });

    expect({ winners: winners.length, losers: losers.length, other, shapes }).toEqual({ winners: 1, losers: ATTEMPTS - 1, other: [], shapes: [] });
    if (rows !== undefined) expect(rows).toBe(1);
    expect(Math.max(peak, peakPasswordQueue)).toBeGreaterThan(1); // the attempts were in flight together
  });
});

function codeOf(url: string, res: HttpResult): string | undefined {
  return url.startsWith('/api/v1/admin/fiscal') ? res.body?.error : res.body?.code;
}
