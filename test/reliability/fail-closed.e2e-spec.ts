import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { onlyOn } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { Fixtures, argentinaDate, nextAfip, nextTipoIvaCode } from './support/fixtures.js';
import { type Operation, mutatingOperations, openApiOf } from './support/openapi.js';
import { ReliabilityApp, changedTables, errorShapeProblems, tableChecksums, uid } from './support/reliability-app.js';

/**
 * Fail-closed: "if the audit record cannot be written, the change is not kept" — for
 * every mutating operation of the OpenAPI document, so a new endpoint is covered (or this suite
 * fails until it gets a request builder or an exemption with its reason).
 */

interface PreparedRequest {
  method: Operation['method'];
  url: string;
  body?: unknown;
  /** the caller's token (default: the bootstrap admin's) */
  token?: string;
}

type Builder = (f: Fixtures, r: ReliabilityApp) => Promise<PreparedRequest>;

/** Operations that write no audit event by design, with the reason. */
const EXEMPT: Record<string, string> = {
  'POST /api/v1/auth/login': 'sign-in records security events, written outside any transaction so a refused login is kept; no audit event',
  'POST /api/v1/auth/refresh':
    'token rotation records security events (refresh.issue, refresh.reuse_detected), not audit events; reuse revocation must survive a failure',
  'POST /api/v1/auth/logout': "sign-out records the security event `logout` only; revoking the caller's own refresh tokens is not an audited change",
  'DELETE /api/v1/auth/sessions/{id}':
    "ending one of the caller's own sessions is a sign-out of that session: the security event `logout` only, like POST /api/v1/auth/logout",
};

const PERMISOS = ['catalogo:rubros:gestionar', 'administracion:auditoria:ver'];

/** A valid request for every audited mutating operation, with the data it needs made first. */
const BUILDERS: Record<string, Builder> = {
  // ---------------------------------------------------------------- users
  'POST /api/v1/users': async () => {
    const username = `fc_${uid().toLowerCase()}`;
    return {
      method: 'POST',
      url: '/api/v1/users',
      body: { username, password: `Clave-${uid()}-segura`, nombre: 'Ana', apellido: 'Paz', email: `${username}@example.test`, rol: 'cajero' },
    };
  },
  'PUT /api/v1/users/{id}': async (f) => {
    const u = await f.user();
    return {
      method: 'PUT',
      url: `/api/v1/users/${u.id}`,
      body: { nombre: 'Otro', apellido: 'Nombre', email: `${u.username}@otro.test`, rol: 'vendedor' },
    };
  },
  'POST /api/v1/users/{id}/deactivate': async (f) => ({ method: 'POST', url: `/api/v1/users/${(await f.user()).id}/deactivate` }),
  'POST /api/v1/users/{id}/reactivate': async (f) => ({ method: 'POST', url: `/api/v1/users/${(await f.user(false)).id}/reactivate` }),
  'POST /api/v1/users/{id}/password-reset': async (f) => ({ method: 'POST', url: `/api/v1/users/${(await f.user()).id}/password-reset` }),
  'PUT /api/v1/users/{id}/permisos/overrides': async (f) => ({
    method: 'PUT',
    url: `/api/v1/users/${(await f.user()).id}/permisos/overrides`,
    body: { granted: [PERMISOS[0]], denied: [] },
  }),
  'PUT /api/v1/users/me/password': async (f) => {
    const u = await f.user();
    const { accessToken } = await f.t.login(u.username, u.password);
    return {
      method: 'PUT',
      url: '/api/v1/users/me/password',
      token: accessToken,
      body: { currentPassword: u.password, newPassword: `Nueva-${uid()}-clave` },
    };
  },
  'DELETE /api/v1/users/{id}/sessions/{sessionId}': async (f) => {
    const u = await f.user();
    const { accessToken } = await f.t.login(u.username, u.password);
    const sid = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')).sid as string;
    return { method: 'DELETE', url: `/api/v1/users/${u.id}/sessions/${sid}` };
  },
  // ---------------------------------------------------------------- roles
  'POST /api/v1/roles': async () => {
    const codigo = `fc_${uid().toLowerCase()}`;
    return { method: 'POST', url: '/api/v1/roles', body: { codigo, nombre: `Rol ${codigo}`, descripcion: 'fail-closed' } };
  },
  'PUT /api/v1/roles/{codigo}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/roles/${(await f.role()).codigo}`,
    body: { nombre: 'Renombrado', descripcion: 'otra' },
  }),
  'DELETE /api/v1/roles/{codigo}': async (f) => ({ method: 'DELETE', url: `/api/v1/roles/${(await f.role()).codigo}` }),
  'POST /api/v1/roles/{codigo}/reactivate': async (f) => ({ method: 'POST', url: `/api/v1/roles/${(await f.role(false)).codigo}/reactivate` }),
  'PUT /api/v1/roles/{codigo}/permisos': async (f) => ({
    method: 'PUT',
    url: `/api/v1/roles/${(await f.role()).codigo}/permisos`,
    body: { permisos: PERMISOS },
  }),
  // ---------------------------------------------------------------- medios, secciones, puntos de venta
  'POST /api/v1/admin/medios': async () => ({ method: 'POST', url: '/api/v1/admin/medios', body: { codigo: `FC_${uid()}`, nombre: 'Medio nuevo' } }),
  'PUT /api/v1/admin/medios/{id}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/admin/medios/${(await f.medio()).id}`,
    body: { nombre: 'Renombrado' },
  }),
  'POST /api/v1/admin/medios/{id}/deactivate': async (f) => ({ method: 'POST', url: `/api/v1/admin/medios/${(await f.medio()).id}/deactivate` }),
  'POST /api/v1/admin/medios/{id}/reactivate': async (f) => ({ method: 'POST', url: `/api/v1/admin/medios/${(await f.medio(false)).id}/reactivate` }),
  'POST /api/v1/admin/secciones': async (f) => ({
    method: 'POST',
    url: '/api/v1/admin/secciones',
    body: { medioId: (await f.medio()).id, codigo: `FC_${uid()}`, nombre: 'Sección nueva', tipo: 'clasificados' },
  }),
  'PUT /api/v1/admin/secciones/{id}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/admin/secciones/${(await f.seccion()).id}`,
    body: { nombre: 'Renombrada', tipo: 'edictos' },
  }),
  'POST /api/v1/admin/secciones/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/secciones/${(await f.seccion()).id}/deactivate`,
  }),
  'POST /api/v1/admin/secciones/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/secciones/${(await f.seccion(false)).id}/reactivate`,
  }),
  'POST /api/v1/admin/puntos-de-venta': async (f) => ({
    method: 'POST',
    url: '/api/v1/admin/puntos-de-venta',
    body: { medioId: (await f.medio()).id, numeroAFIP: nextAfip(), nombre: 'PDV nuevo', domicilio: 'Calle 2' },
  }),
  'PUT /api/v1/admin/puntos-de-venta/{id}': async (f) => {
    const p = await f.puntoDeVenta();
    return {
      method: 'PUT',
      url: `/api/v1/admin/puntos-de-venta/${p.id}`,
      body: { numeroAFIP: nextAfip(), nombre: 'Renombrado', domicilio: 'Calle 3' },
    };
  },
  'POST /api/v1/admin/puntos-de-venta/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/puntos-de-venta/${(await f.puntoDeVenta()).id}/deactivate`,
  }),
  'POST /api/v1/admin/puntos-de-venta/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/puntos-de-venta/${(await f.puntoDeVenta(false)).id}/reactivate`,
  }),
  // ---------------------------------------------------------------- fiscal
  'POST /api/v1/admin/fiscal/tipos-iva': async () => ({
    method: 'POST',
    url: '/api/v1/admin/fiscal/tipos-iva',
    body: { codigo: nextTipoIvaCode(), descripcion: 'IVA nuevo', porcentaje: 27 },
  }),
  'PUT /api/v1/admin/fiscal/tipos-iva/{id}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/admin/fiscal/tipos-iva/${(await f.tipoIva()).id}`,
    body: { descripcion: 'Otra', porcentaje: 2.5 },
  }),
  'POST /api/v1/admin/fiscal/tipos-iva/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/fiscal/tipos-iva/${(await f.tipoIva()).id}/deactivate`,
  }),
  'POST /api/v1/admin/fiscal/tipos-iva/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/fiscal/tipos-iva/${(await f.tipoIva(false)).id}/reactivate`,
  }),
  'POST /api/v1/admin/fiscal/ingresos-brutos': async (f) => ({
    method: 'POST',
    url: '/api/v1/admin/fiscal/ingresos-brutos',
    body: { provincia: f.freeProvincia(), descripcion: 'IIBB nuevo', alicuota: 1.75 },
  }),
  'PUT /api/v1/admin/fiscal/ingresos-brutos/{id}': async (f) => {
    const ib = await f.ingresosBrutos();
    return {
      method: 'PUT',
      url: `/api/v1/admin/fiscal/ingresos-brutos/${ib.id}`,
      body: { provincia: ib.provincia, descripcion: 'Otra', alicuota: 4.25 },
    };
  },
  'POST /api/v1/admin/fiscal/ingresos-brutos/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/fiscal/ingresos-brutos/${(await f.ingresosBrutos()).id}/deactivate`,
  }),
  'POST /api/v1/admin/fiscal/ingresos-brutos/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/fiscal/ingresos-brutos/${(await f.ingresosBrutos(false)).id}/reactivate`,
  }),
  // ---------------------------------------------------------------- catalog
  'POST /api/v1/admin/rubros': async (f) => ({
    method: 'POST',
    url: '/api/v1/admin/rubros',
    body: { nombre: `Rubro ${uid()}`, parentId: (await f.rubro()).id },
  }),
  'PUT /api/v1/admin/rubros/{id}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/admin/rubros/${(await f.rubro()).id}`,
    body: { nombre: `Renombrado ${uid()}` },
  }),
  'POST /api/v1/admin/rubros/{id}/move': async (f) => {
    const [a, b] = [await f.rubro(), await f.rubro()];
    return { method: 'POST', url: `/api/v1/admin/rubros/${a.id}/move`, body: { parentId: b.id } };
  },
  'POST /api/v1/admin/rubros/{id}/deactivate': async (f) => ({ method: 'POST', url: `/api/v1/admin/rubros/${(await f.rubro()).id}/deactivate` }),
  'POST /api/v1/admin/rubros/{id}/reactivate': async (f) => ({ method: 'POST', url: `/api/v1/admin/rubros/${(await f.rubro(false)).id}/reactivate` }),
  'POST /api/v1/admin/product-types': async () => ({
    method: 'POST',
    url: '/api/v1/admin/product-types',
    body: { codigo: `FC_${uid()}`, nombre: 'Tipo nuevo', descripcion: 'x' },
  }),
  'PUT /api/v1/admin/product-types/{id}': async (f) => ({
    method: 'PUT',
    url: `/api/v1/admin/product-types/${(await f.productType()).id}`,
    body: { nombre: 'Renombrado', descripcion: 'y' },
  }),
  'POST /api/v1/admin/product-types/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/product-types/${(await f.productType()).id}/deactivate`,
  }),
  'POST /api/v1/admin/product-types/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/product-types/${(await f.productType(false)).id}/reactivate`,
  }),
  'POST /api/v1/admin/products': async (f) => ({
    method: 'POST',
    url: '/api/v1/admin/products',
    body: { codigo: `FC_${uid()}`, nombre: 'Producto nuevo', rubroId: (await f.rubro()).id, productTypeId: (await f.productType()).id },
  }),
  'PUT /api/v1/admin/products/{id}': async (f) => {
    const p = await f.product();
    return {
      method: 'PUT',
      url: `/api/v1/admin/products/${p.id}`,
      body: { nombre: 'Renombrado', rubroId: (await f.rubro()).id, productTypeId: p.productTypeId },
    };
  },
  'POST /api/v1/admin/products/{id}/deactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/products/${(await f.product()).id}/deactivate`,
  }),
  'POST /api/v1/admin/products/{id}/reactivate': async (f) => ({
    method: 'POST',
    url: `/api/v1/admin/products/${(await f.product(false)).id}/reactivate`,
  }),
  'POST /api/v1/admin/products/{id}/prices': async (f) => {
    const p = await f.product();
    await f.price(p.id, 1);
    return { method: 'POST', url: `/api/v1/admin/products/${p.id}/prices`, body: { fechaVigencia: argentinaDate(30), monto: 250.5 } };
  },
};

interface Outcome {
  operation: string;
  held: boolean;
  status: number;
  retryStatus?: number;
  changed: string[];
  problems: string[];
}

describe('fail-closed on every mutation (audit inserts forced to fail at the database)', () => {
  let r: ReliabilityApp;
  let operations: Operation[];

  beforeAll(async () => {
    r = await ReliabilityApp.create();
    operations = mutatingOperations(openApiOf(r.t.app));
  });
  afterAll(async () => {
    await r?.close();
  });

  it('has a request builder or a stated exemption for every mutating operation of the OpenAPI document, and none for an operation it no longer has', () => {
    const keys = operations.map((o) => o.key);
    expect(keys.filter((k) => !BUILDERS[k] && !EXEMPT[k])).toEqual([]);
    expect([...Object.keys(BUILDERS), ...Object.keys(EXEMPT)].filter((k) => !keys.includes(k))).toEqual([]);
    expect(Object.keys(BUILDERS).filter((k) => EXEMPT[k])).toEqual([]);
  });

  onlyOn('postgres', 'the before/after comparison checksums tables with md5(string_agg(row::text))')(
    'answers every audited mutation with a non-2xx error document and changes no table while the audit store refuses inserts; the same request succeeds once it accepts them',
    async () => {
      const f = await Fixtures.for(r.t);
      const outcomes: Outcome[] = [];
      for (const op of operations.filter((o) => BUILDERS[o.key])) {
        const request = await BUILDERS[op.key]!(f, r);
        const send = () => r.t.request(request.method, request.url, { token: request.token ?? f.token, body: request.body });
        const before = await tableChecksums(r.owner);
        const restore = await r.breakAuditStore();
        let res;
        try {
          res = await send();
        } finally {
          await restore();
        }
        const changed = changedTables(before, await tableChecksums(r.owner));
        const problems = res.status < 400 ? [`answered ${res.status}`] : errorShapeProblems(op.path, res);
        if (/audit store unavailable|audit_events|INSERT/.test(res.text)) problems.push('the answer names the failure');

        // the request was valid: with the store back it succeeds and writes its audit event
        const events = Number((await r.ownerQuery('SELECT count(*) AS n FROM audit_events'))[0].n);
        const retry = await send();
        if (retry.status >= 300) problems.push(`the same request failed with the store back: ${retry.status} ${retry.text.slice(0, 200)}`);
        const eventsAfter = Number((await r.ownerQuery('SELECT count(*) AS n FROM audit_events'))[0].n);
        if (eventsAfter <= events) problems.push('the request writes no audit event: it belongs in EXEMPT with a reason');
        // and the comparison does see a kept change (it is not blind)
        if (changedTables(before, await tableChecksums(r.owner)).length === 0) problems.push('the checksums do not see the successful change');

        outcomes.push({
          operation: op.key,
          held: changed.length === 0 && problems.length === 0,
          status: res.status,
          retryStatus: retry.status,
          changed,
          problems,
        });
      }

      const held = outcomes.filter((o) => o.held).length;
      recordFigures('fail-closed', `fail-closed: ${outcomes.length} operations, ${held} held`, {
        operations: outcomes.length,
        held,
        exempt: Object.entries(EXEMPT).map(([operation, reason]) => ({ operation, reason })),
        statuses: Object.fromEntries(outcomes.map((o) => [o.operation, o.status])),
        failures: outcomes.filter((o) => !o.held),
      });
      expect(outcomes.filter((o) => !o.held)).toEqual([]);
      expect(outcomes.length).toBe(operations.length - Object.keys(EXEMPT).length);
    },
  );
});
