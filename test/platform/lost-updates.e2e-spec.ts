import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createProduct, createProductType, createRubro, statusCounts, uid } from '../catalog/catalog-fixtures.js';
import { type HttpResult, TestApp } from '../support/test-app.js';

/**
 * Lost updates are refused (docs/frontend.md "Concurrent edits"): two administrators read the same
 * record, the first changes it, the second sends its change based on what it read — with the ETag
 * of that read in If-Match — and gets 412 `version_obsoleta` instead of silently overwriting the
 * first change. Every single resource of the API and every change operation of it is attacked
 * here the same way (table-driven), on the real database.
 */
const MEDIOS = '/api/v1/admin/medios';
const SECCIONES = '/api/v1/admin/secciones';
const PUNTOS = '/api/v1/admin/puntos-de-venta';
const TIPOS_IVA = '/api/v1/admin/fiscal/tipos-iva';
const IIBB = '/api/v1/admin/fiscal/ingresos-brutos';
const RUBROS = '/api/v1/admin/rubros';
const PROVINCIAS = ['SALTA', 'JUJUY', 'TUCUMAN', 'CHACO', 'FORMOSA', 'MISIONES', 'CORRIENTES', 'SAN_LUIS', 'LA_PAMPA', 'NEUQUEN'];

type Method = 'PUT' | 'POST' | 'DELETE';

/** `/api/v1/products/7` + `admin/deactivate` → `/api/v1/admin/products/7/deactivate`; otherwise a suffix. */
function changePath(url: string, path: string): string {
  if (!path.startsWith('admin')) return `${url}${path}`;
  const rest = path.slice('admin'.length);
  return `${url.replace('/api/v1/', '/api/v1/admin/')}${rest}`;
}

/** One change operation: what the first admin sends, and what the second (stale) admin sends. */
interface Change {
  name: string;
  method: Method;
  /** path of the change, relative to the resource's GET path (or absolute when it starts with /api) */
  path: string;
  first?: unknown;
  second?: unknown;
  /** brings the resource into the state this change starts from (e.g. inactive for reactivate) */
  prepare?: (t: TestApp, token: string, url: string) => Promise<void>;
}

interface Resource {
  name: string;
  fiscal?: boolean;
  /** creates a fresh resource through the API: its GET path and the create's answer */
  create: (t: TestApp, token: string) => Promise<{ url: string; created?: HttpResult }>;
  changes: Change[];
}

let seq = 0;
const next = () => ++seq;
const code = (prefix: string) => `${prefix}_${uid()}${next()}`.slice(0, 20);

async function ok(res: HttpResult, what: string): Promise<HttpResult> {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

const deactivated =
  (path = '/deactivate') =>
  async (t: TestApp, token: string, url: string) => {
    await ok(await t.post(changePath(url, path), undefined, { token }), 'prepare: deactivate');
  };

const activation = (prepareReactivate = deactivated()): Change[] => [
  { name: 'deactivate', method: 'POST', path: '/deactivate' },
  { name: 'reactivate', method: 'POST', path: '/reactivate', prepare: prepareReactivate },
];

async function newMedio(t: TestApp, token: string): Promise<{ id: number }> {
  return (await ok(await t.post(MEDIOS, { codigo: code('M'), nombre: 'Medio' }, { token }), 'medio')).body;
}

const RESOURCES: Resource[] = [
  {
    name: 'user',
    create: async (t, token) => {
      const created = await ok(
        await t.post(
          '/api/v1/users',
          { username: `lu${uid()}${next()}`, password: 'Clave-Segura-123', nombre: 'Ana', apellido: 'Paz', email: 'ana@example.test', rol: 'cajero' },
          { token },
        ),
        'user',
      );
      return { url: `/api/v1/users/${created.body.id}`, created };
    },
    changes: [
      {
        name: 'PUT',
        method: 'PUT',
        path: '',
        first: { nombre: 'Ana María', apellido: 'Paz', email: 'ana@example.test', rol: 'cajero' },
        second: { nombre: 'Ana', apellido: 'Paz', email: 'otra@example.test', rol: 'cajero' },
      },
      ...activation(),
    ],
  },
  {
    name: 'user permission view',
    create: async (t, token) => {
      const user = await t.createUser('cajero');
      void token;
      return { url: `/api/v1/users/${user.id}/permisos` };
    },
    changes: [
      {
        name: 'PUT overrides',
        method: 'PUT',
        path: '/overrides',
        first: { granted: ['catalogo:rubros:gestionar'], denied: [] },
        second: { granted: [], denied: ['catalogo:tipos_producto:gestionar'] },
      },
    ],
  },
  {
    name: 'role',
    create: async (t, token) => {
      const codigo = `rol_${uid().toLowerCase()}${next()}`;
      const created = await ok(await t.post('/api/v1/roles', { codigo, nombre: 'Rol', descripcion: 'd' }, { token }), 'role');
      return { url: `/api/v1/roles/${codigo}`, created };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: '', first: { nombre: 'Rol A' }, second: { nombre: 'Rol', descripcion: 'otra' } },
      { name: 'DELETE', method: 'DELETE', path: '' },
      {
        name: 'reactivate',
        method: 'POST',
        path: '/reactivate',
        prepare: async (t, token, url) => {
          await ok(await t.delete(url, { token }), 'prepare: delete role');
        },
      },
    ],
  },
  {
    name: 'role permission set',
    create: async (t, token) => {
      const codigo = `rolp_${uid().toLowerCase()}${next()}`;
      await ok(await t.post('/api/v1/roles', { codigo, nombre: 'Rol' }, { token }), 'role');
      return { url: `/api/v1/roles/${codigo}/permisos` };
    },
    changes: [
      {
        name: 'PUT permisos',
        method: 'PUT',
        path: '',
        first: { permisos: ['catalogo:rubros:gestionar'] },
        second: { permisos: ['administracion:medios:gestionar'] },
      },
    ],
  },
  {
    name: 'medio',
    create: async (t, token) => {
      const created = await ok(await t.post(MEDIOS, { codigo: code('M'), nombre: 'Medio' }, { token }), 'medio');
      return { url: `${MEDIOS}/${created.body.id}`, created };
    },
    changes: [{ name: 'PUT', method: 'PUT', path: '', first: { nombre: 'Diario A' }, second: { nombre: 'Diario B' } }, ...activation()],
  },
  {
    name: 'seccion',
    create: async (t, token) => {
      const medio = await newMedio(t, token);
      const created = await ok(
        await t.post(SECCIONES, { medioId: medio.id, codigo: code('S'), nombre: 'Secc', tipo: 'clasificados' }, { token }),
        'seccion',
      );
      return { url: `${SECCIONES}/${created.body.id}`, created };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: '', first: { nombre: 'Secc A', tipo: 'clasificados' }, second: { nombre: 'Secc', tipo: 'digital' } },
      ...activation(),
    ],
  },
  {
    name: 'punto de venta',
    create: async (t, token) => {
      const medio = await newMedio(t, token);
      const created = await ok(
        await t.post(PUNTOS, { medioId: medio.id, numeroAFIP: 1000 + next(), nombre: 'Casa', domicilio: 'Calle 1' }, { token }),
        'punto de venta',
      );
      return { url: `${PUNTOS}/${created.body.id}`, created };
    },
    changes: [
      {
        name: 'PUT',
        method: 'PUT',
        path: '',
        first: { numeroAFIP: 5000 + next(), nombre: 'Casa A', domicilio: 'Calle 1' },
        second: { numeroAFIP: 6000 + next(), nombre: 'Casa', domicilio: 'Calle 2' },
      },
      ...activation(),
    ],
  },
  {
    name: 'tipo de IVA',
    fiscal: true,
    create: async (t, token) => {
      const created = await ok(await t.post(TIPOS_IVA, { codigo: 100 + next(), descripcion: 'IVA', porcentaje: 21 }, { token }), 'tipo iva');
      return { url: `${TIPOS_IVA}/${created.body.id}`, created };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: '', first: { descripcion: 'IVA A', porcentaje: 21 }, second: { descripcion: 'IVA', porcentaje: 10.5 } },
      ...activation(),
    ],
  },
  {
    name: 'ingresos brutos',
    fiscal: true,
    create: async (t, token) => {
      const provincia = PROVINCIAS[next() % PROVINCIAS.length]!;
      // one active entry per provincia: make room
      const existing = await t.get(IIBB, { token, query: { activo: true } });
      for (const e of existing.body as Array<{ id: number; provincia: string }>)
        if (e.provincia === provincia) await ok(await t.post(`${IIBB}/${e.id}/deactivate`, undefined, { token }), 'make room');
      const created = await ok(await t.post(IIBB, { provincia, descripcion: 'IIBB', alicuota: 3.5 }, { token }), 'iibb');
      return { url: `${IIBB}/${created.body.id}`, created };
    },
    changes: [{ name: 'PUT', method: 'PUT', path: '', first: 'iibb-first', second: 'iibb-second' }, ...activation()],
  },
  {
    name: 'rubro',
    create: async (t, token) => {
      const created = await t.post(RUBROS, { nombre: `R-${uid()}${next()}`, parentId: null }, { token });
      return { url: `${RUBROS}/${(await ok(created, 'rubro')).body.id}`, created };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: '', first: { nombre: `RA-${uid()}` }, second: { nombre: `RB-${uid()}` } },
      { name: 'move', method: 'POST', path: '/move', first: 'parent-1', second: 'parent-2' },
      ...activation(),
    ],
  },
  {
    name: 'product type',
    create: async (t, token) => {
      const type = await createProductType(t, token);
      return { url: `/api/v1/product-types/${type.id}` };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: 'admin', first: { nombre: 'Tipo A' }, second: { nombre: 'Tipo', descripcion: 'otra' } },
      { name: 'deactivate', method: 'POST', path: 'admin/deactivate' },
      { name: 'reactivate', method: 'POST', path: 'admin/reactivate', prepare: deactivated('admin/deactivate') },
    ],
  },
  {
    name: 'product',
    create: async (t, token) => {
      const rubro = await createRubro(t, token, `PR-${uid()}${next()}`);
      const type = await createProductType(t, token);
      const product = await createProduct(t, token, rubro.id, type.id);
      return { url: `/api/v1/products/${product.id}` };
    },
    changes: [
      { name: 'PUT', method: 'PUT', path: 'admin', first: 'product-first', second: 'product-second' },
      { name: 'deactivate', method: 'POST', path: 'admin/deactivate' },
      { name: 'reactivate', method: 'POST', path: 'admin/reactivate', prepare: deactivated('admin/deactivate') },
    ],
  },
];

describe('lost updates are refused with 412 on every single resource (ETag / If-Match)', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t?.close());

  /** Bodies that depend on the resource's current state (ids of other rows). */
  async function body(resource: Resource, change: Change, which: 'first' | 'second', current: any): Promise<unknown> {
    const marker = change[which];
    if (marker === 'iibb-first') return { provincia: current.provincia, descripcion: 'IIBB A', alicuota: 3.5 };
    if (marker === 'iibb-second') return { provincia: current.provincia, descripcion: 'IIBB', alicuota: 4 };
    if (marker === 'parent-1' || marker === 'parent-2') return { parentId: (await createRubro(t, admin, `P-${which}-${uid()}${next()}`)).id };
    if (marker === 'product-first') return { nombre: 'Producto A', rubroId: current.rubroId, productTypeId: current.productTypeId };
    if (marker === 'product-second') {
      const rubro = await createRubro(t, admin, `PR2-${uid()}${next()}`);
      return { nombre: current.nombre, rubroId: rubro.id, productTypeId: current.productTypeId };
    }
    void resource;
    return marker;
  }

  const send = (method: Method, url: string, payload: unknown, ifMatch?: string) =>
    t.request(method, url, { token: admin, body: payload, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });

  const cases = RESOURCES.flatMap((resource) => resource.changes.map((change) => [`${resource.name}: ${change.name}`, resource, change] as const));

  it.each(cases)(
    '%s — a change based on a stale ETag is 412, the record keeps the first change and nothing is audited',
    async (_name, resource, change) => {
      const { url, created } = await resource.create(t, admin);
      await change.prepare?.(t, admin, url);

      // both administrators read the record
      const read = await ok(await t.get(url, { token: admin }), 'read');
      const etag = read.headers.etag as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      if (created && !change.prepare) expect(created.headers.etag).toBe(etag);
      const target = changePath(url, change.path);
      const firstBody = await body(resource, change, 'first', read.body);
      const secondBody = await body(resource, change, 'second', read.body);

      // the first one changes it, with its ETag: accepted, answered with the new ETag
      const first = await send(change.method, target, firstBody, etag);
      expect([200, 204]).toContain(first.status);
      const newEtag = first.headers.etag as string;
      expect(newEtag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(newEtag).not.toBe(etag);
      const afterFirst = await t.get(url, { token: admin });
      expect(afterFirst.headers.etag).toBe(newEtag);

      // the second one sends its own change based on the stale read: refused, nothing changes or is audited
      const auditBefore = (await t.auditEvents()).length;
      const second = await send(change.method, target, secondBody, etag);
      expect(second.status).toBe(412);
      if (resource.fiscal) expect(second.body).toEqual({ error: 'version_obsoleta', message: expect.any(String) });
      else expect(second.body).toMatchObject({ status: 412, code: 'version_obsoleta' });
      expect(second.headers.etag).toBeUndefined();
      const afterSecond = await t.get(url, { token: admin });
      expect(afterSecond.body).toEqual(afterFirst.body);
      expect(afterSecond.headers.etag).toBe(newEtag);
      expect((await t.auditEvents()).length).toBe(auditBefore);

      // re-read and retry: the fresh ETag is accepted
      const retry = await send(change.method, target, secondBody, newEtag);
      expect([200, 204]).toContain(retry.status);
    },
  );

  it('covers every single resource the API has', () => {
    expect(RESOURCES.map((r) => r.name)).toHaveLength(12);
  });

  describe('without If-Match, or with *', () => {
    it('applies a change without If-Match as before, and answers its new ETag', async () => {
      const { url } = await RESOURCES.find((r) => r.name === 'medio')!.create(t, admin);
      const before = await t.get(url, { token: admin });
      const res = await t.put(url, { nombre: 'Sin If-Match' }, { token: admin });
      expect(res.status).toBe(200);
      expect(res.body.nombre).toBe('Sin If-Match');
      expect(res.headers.etag).not.toBe(before.headers.etag);
      expect((await t.get(url, { token: admin })).headers.etag).toBe(res.headers.etag);
    });

    it('applies a change with If-Match: * whatever the current version', async () => {
      const { url } = await RESOURCES.find((r) => r.name === 'medio')!.create(t, admin);
      await t.put(url, { nombre: 'Otro cambio' }, { token: admin });
      const res = await send('PUT', url, { nombre: 'Con asterisco' }, '*');
      expect(res.status).toBe(200);
      expect((await t.get(url, { token: admin })).body.nombre).toBe('Con asterisco');
    });

    it('answers 404 for If-Match: * on a resource that does not exist', async () => {
      const res = await send('PUT', `${MEDIOS}/999999`, { nombre: 'x' }, '*');
      expect(res).toMatchObject({ status: 404, body: { code: 'no_encontrado' } });
    });

    it('accepts a list of tags that contains the current one, and refuses a weak tag (strong comparison)', async () => {
      const { url } = await RESOURCES.find((r) => r.name === 'medio')!.create(t, admin);
      const etag = (await t.get(url, { token: admin })).headers.etag as string;
      expect((await send('PUT', url, { nombre: 'Débil' }, `W/${etag}`)).status).toBe(412);
      expect((await send('PUT', url, { nombre: 'Lista' }, `"otro", ${etag}`)).status).toBe(200);
    });

    it('refuses a blank If-Match (412, nothing changed): it names no version, so it is no "without If-Match"', async () => {
      const { url } = await RESOURCES.find((r) => r.name === 'medio')!.create(t, admin);
      const before = await t.get(url, { token: admin });
      for (const blank of ['', ' ']) {
        expect(await send('PUT', url, { nombre: 'En blanco' }, blank)).toMatchObject({ status: 412, body: { code: 'version_obsoleta' } });
      }
      const after = await t.get(url, { token: admin });
      expect({ nombre: after.body.nombre, etag: after.headers.etag }).toEqual({ nombre: before.body.nombre, etag: before.headers.etag });
    });

    it('checks the path before the precondition: a malformed id with If-Match is 400, not 412', async () => {
      expect((await send('PUT', `${MEDIOS}/abc`, { nombre: 'x' }, '"x"')).status).toBe(400);
      expect((await send('PUT', '/api/v1/roles/Mal-Codigo', { nombre: 'x' }, '"x"')).status).toBe(400);
    });
  });

  describe('ten concurrent changes holding the same ETag', () => {
    const concurrent = [
      ['medio PUT', 'medio', (i: number) => ({ method: 'PUT' as const, path: '', body: { nombre: `Concurrente ${i}` } })],
      [
        'user PUT',
        'user',
        (i: number) => ({ method: 'PUT' as const, path: '', body: { nombre: `N${i}`, apellido: 'Paz', email: 'ana@example.test', rol: 'cajero' } }),
      ],
      [
        'role permission set PUT',
        'role permission set',
        (i: number) => ({
          method: 'PUT' as const,
          path: '',
          body: { permisos: i % 2 ? ['catalogo:rubros:gestionar'] : ['administracion:medios:gestionar'] },
        }),
      ],
      ['medio deactivate', 'medio', () => ({ method: 'POST' as const, path: '/deactivate', body: undefined })],
      ['user deactivate', 'user', () => ({ method: 'POST' as const, path: '/deactivate', body: undefined })],
      [
        'user overrides PUT',
        'user permission view',
        (i: number) => ({
          method: 'PUT' as const,
          path: '/overrides',
          body: { granted: [], denied: i % 2 ? ['catalogo:tipos_producto:gestionar'] : [] },
        }),
      ],
    ] as const;

    it.each(concurrent)("%s: exactly one 200 and nine 412, and the record is the winner's", async (_name, resourceName, request) => {
      const resource = RESOURCES.find((r) => r.name === resourceName)!;
      const { url } = await resource.create(t, admin);
      const etag = (await t.get(url, { token: admin })).headers.etag as string;
      const requests = Array.from({ length: 10 }, (_v, i) => request(i));
      const auditBefore = (await t.auditEvents()).length;
      const results = await Promise.all(requests.map((r) => send(r.method, `${url}${r.path}`, r.body, etag)));
      expect(statusCounts(results)).toEqual({ 200: 1, 412: 9 });
      const winner = results.find((r) => r.status === 200)!;
      const now = await t.get(url, { token: admin });
      expect(now.body).toEqual(winner.body);
      expect(now.headers.etag).toBe(winner.headers.etag);
      expect((await t.auditEvents()).length).toBe(auditBefore + 1);
    });
  });

  describe('a PUT that repeats the record as it is writes nothing', () => {
    /** The body of a PUT that sends back the values the record already has. */
    const unchanged: Record<string, (current: any) => unknown> = {
      role: (r) => ({ nombre: r.nombre, descripcion: r.descripcion }),
      medio: (r) => ({ nombre: r.nombre }),
      seccion: (r) => ({ nombre: r.nombre, tipo: r.tipo }),
      'punto de venta': (r) => ({ numeroAFIP: r.numeroAFIP, nombre: r.nombre, domicilio: r.domicilio }),
      'tipo de IVA': (r) => ({ descripcion: r.descripcion, porcentaje: r.porcentaje }),
      'ingresos brutos': (r) => ({ provincia: r.provincia, descripcion: r.descripcion, alicuota: r.alicuota }),
      rubro: (r) => ({ nombre: r.nombre }),
      'product type': (r) => ({ nombre: r.nombre, descripcion: r.descripcion }),
      product: (r) => ({ nombre: r.nombre, rubroId: r.rubroId, productTypeId: r.productTypeId }),
    };

    it.each(Object.keys(unchanged))(
      '%s: same ETag, same updatedAt, no audit event; a console holding the ETag still saves, a stale one still gets 412',
      async (name) => {
        const resource = RESOURCES.find((r) => r.name === name)!;
        const put = resource.changes.find((c) => c.method === 'PUT')!;
        const { url } = await resource.create(t, admin);
        const read = await ok(await t.get(url, { token: admin }), 'read');
        const etag = read.headers.etag as string;
        const target = changePath(url, put.path);
        const auditBefore = (await t.auditEvents()).length;

        const repeat = await send('PUT', target, unchanged[name]!(read.body));
        expect(repeat.status).toBe(200);
        expect(repeat.body).toEqual(read.body);
        expect(repeat.headers.etag).toBe(etag);
        const again = await t.get(url, { token: admin });
        expect(again.headers.etag).toBe(etag);
        expect(again.body.updatedAt).toBe(read.body.updatedAt);
        expect((await t.auditEvents()).length).toBe(auditBefore);

        // another console that read the record before the repeat saves its change
        const change = await send('PUT', target, await body(resource, put, 'first', read.body), etag);
        expect(change.status).toBe(200);
        // and a repeat based on the read that change made stale is refused like any change
        const current = (await t.get(url, { token: admin })).body;
        expect((await send('PUT', target, unchanged[name]!(current), etag)).status).toBe(412);
      },
    );
  });

  describe('the ETag follows the representation', () => {
    it("changes a rubro's ETag when an ancestor moves and its level changes", async () => {
      const root = await createRubro(t, admin, `A-${uid()}`);
      const child = await createRubro(t, admin, `B-${uid()}`, root.id);
      const other = await createRubro(t, admin, `C-${uid()}`);
      const before = await t.get(`${RUBROS}/${child.id}`, { token: admin });
      await ok(await t.post(`${RUBROS}/${root.id}/move`, { parentId: other.id }, { token: admin }), 'move');
      const after = await t.get(`${RUBROS}/${child.id}`, { token: admin });
      expect(after.body.nivel).toBe(before.body.nivel + 1);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      // a change based on the old level is refused
      expect((await send('PUT', `${RUBROS}/${child.id}`, { nombre: 'x' }, before.headers.etag as string)).status).toBe(412);
    });

    it("changes a user's permission view ETag when its role's permission set changes", async () => {
      const codigo = `rv_${uid().toLowerCase()}`;
      await ok(await t.post('/api/v1/roles', { codigo, nombre: 'Rol' }, { token: admin }), 'role');
      const user = await ok(
        await t.post(
          '/api/v1/users',
          { username: `pv${uid()}`, password: 'Clave-Segura-123', nombre: 'A', apellido: 'B', email: 'a@example.test', rol: codigo },
          { token: admin },
        ),
        'user',
      );
      const before = await t.get(`/api/v1/users/${user.body.id}/permisos`, { token: admin });
      await ok(await t.put(`/api/v1/roles/${codigo}/permisos`, { permisos: ['catalogo:tipos_producto:gestionar'] }, { token: admin }), 'role set');
      const after = await t.get(`/api/v1/users/${user.body.id}/permisos`, { token: admin });
      expect(after.body.efectivos).toEqual(['catalogo:tipos_producto:gestionar']);
      expect(after.headers.etag).not.toBe(before.headers.etag);
    });

    it("keeps a permission view's ETag through writes that leave its set alone, and the role's through a change of its set", async () => {
      const codigo = `rk_${uid().toLowerCase()}`;
      await ok(await t.post('/api/v1/roles', { codigo, nombre: 'Rol', descripcion: 'd' }, { token: admin }), 'role');
      const username = `pk${uid()}`;
      const user = await ok(
        await t.post(
          '/api/v1/users',
          { username, password: 'Clave-Segura-123', nombre: 'A', apellido: 'B', email: 'a@example.test', rol: codigo },
          { token: admin },
        ),
        'user',
      );
      const view = `/api/v1/users/${user.body.id}/permisos`;
      const userTag = (await t.get(view, { token: admin })).headers.etag as string;
      const roleViewTag = (await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).headers.etag as string;
      // the user signs in (its row's ultimoLogin), and the role is renamed (its row's nombre)
      await t.login(username, 'Clave-Segura-123');
      await ok(await t.put(`/api/v1/roles/${codigo}`, { nombre: 'Rol renombrado', descripcion: 'd' }, { token: admin }), 'rename');
      expect((await t.get(view, { token: admin })).headers.etag).toBe(userTag);
      expect((await t.get(`/api/v1/roles/${codigo}/permisos`, { token: admin })).headers.etag).toBe(roleViewTag);
      const roleTag = (await t.get(`/api/v1/roles/${codigo}`, { token: admin })).headers.etag as string;
      const granted = await send('PUT', `${view}/overrides`, { granted: ['catalogo:rubros:gestionar'], denied: [] }, userTag);
      expect(granted.status).toBe(200);
      // the role's set changes: its view's tag moves, the role's own does not
      expect((await send('PUT', `/api/v1/roles/${codigo}/permisos`, { permisos: ['catalogo:tipos_producto:gestionar'] }, roleViewTag)).status).toBe(
        200,
      );
      expect((await t.get(`/api/v1/roles/${codigo}`, { token: admin })).headers.etag).toBe(roleTag);
      expect((await send('PUT', `/api/v1/roles/${codigo}`, { nombre: 'Rol', descripcion: 'd' }, roleTag)).status).toBe(200);
      // and the set's tags still refuse a stale replacement
      expect((await send('PUT', `${view}/overrides`, { granted: [], denied: [] }, userTag)).status).toBe(412);
      expect((await send('PUT', `/api/v1/roles/${codigo}/permisos`, { permisos: [] }, roleViewTag)).status).toBe(412);
    });

    it('gives the same representation the same ETag (reads are stable)', async () => {
      const { url } = await RESOURCES.find((r) => r.name === 'role')!.create(t, admin);
      const a = await t.get(url, { token: admin });
      const b = await t.get(url, { token: admin });
      expect(a.headers.etag).toBe(b.headers.etag);
    });
  });
});
