/**
 * The admin console's flows, written the way a frontend writes them: only the generated client,
 * strict TypeScript (see tsconfig.json here: strict, exactOptionalPropertyTypes,
 * noUncheckedIndexedAccess) and no casts. If the document stops describing what the service
 * does, this file stops compiling or a flow fails against the running service.
 *
 * Adding a flow: append `{ name, run }` to FLOWS; `run` gets a FlowContext (an admin client, an
 * anonymous client, a way to sign in as anyone and a unique tag) and asserts with node:assert.
 */
import assert from 'node:assert/strict';
import {
  type ApiClient,
  createApiClient,
  createAuthenticatedClient,
  type ErrorCode,
  isProblem,
  memoryTokenStore,
  type RefreshLock,
  type Schemas,
  type Tokens,
  type TokenStore,
} from '../index.js';

export interface FlowContext {
  baseUrl: string;
  /** signed in as the bootstrap administrator */
  admin: ApiClient;
  /** no token */
  anonymous: ApiClient;
  adminCredentials: { username: string; password: string };
  /** A client signed in as `username`, with its token store (for refresh scenarios). */
  signIn(username: string, password: string): Promise<{ client: ApiClient; store: TokenStore }>;
  /** A fresh lowercase tag, unique per call. */
  tag(): string;
  /** An access token of that user, correctly signed but expired (what a tab left open overnight holds). */
  expiredAccessToken(user: { id: number; username: string; rol: string }): string;
}

export interface Flow {
  name: string;
  run(ctx: FlowContext): Promise<void>;
}

/** What every openapi-fetch call answers: `data` on 2xx, `error` otherwise, and the raw response. */
type Outcome = { data?: unknown; error?: unknown; response: Response };

/** The success body of a call, after checking its status. */
export function expectData<R extends Outcome>(result: R, status: number): NonNullable<R['data']> {
  assert.equal(result.response.status, status, `${result.response.url}: expected ${status}, got ${result.response.status}`);
  const data = result.data;
  if (data === undefined || data === null) throw new Error(`${result.response.url}: no body`);
  return data;
}

/** A problem document with the given status and code. */
export function expectProblem(result: Outcome, status: number, code: ErrorCode): Schemas['ProblemDetailsDto'] {
  assert.equal(result.response.status, status, `${result.response.url}: expected ${status}, got ${result.response.status}`);
  const error = result.error;
  if (!isProblem(error)) throw new Error(`${result.response.url}: not a problem document`);
  assert.equal(error.code, code);
  return error;
}

/**
 * Deep equality through JSON: the values come from another realm's JSON.parse when the test runner
 * sandboxes modules (Jest), where node:assert's strict deep equality also compares prototypes.
 */
export function equalJson(actual: unknown, expected: unknown): void {
  assert.equal(JSON.stringify(actual), JSON.stringify(expected));
}

export function first<T>(items: readonly T[], what: string): T {
  const item = items[0];
  if (item === undefined) throw new Error(`no ${what}`);
  return item;
}

export async function signIn(baseUrl: string, username: string, password: string): Promise<{ client: ApiClient; store: TokenStore }> {
  const login = expectData(await createApiClient({ baseUrl }).POST('/api/v1/auth/login', { body: { username, password } }), 200);
  const store = memoryTokenStore({ accessToken: login.accessToken, refreshToken: login.refreshToken });
  return { client: createAuthenticatedClient({ baseUrl, store }), store };
}

/** The URL a fetch was asked for, whichever form the caller gave it in. */
const urlOf = (input: Parameters<typeof globalThis.fetch>[0]): string =>
  typeof input === 'string' ? input : 'href' in input ? input.href : input.url;

/** A user of its own, signed in, with an expired access token of its session's user (what every tab holds after 15 minutes). */
async function staleSession(ctx: FlowContext, suffix: string): Promise<{ stale: Tokens; username: string }> {
  const tag = ctx.tag();
  const password = `Clave-${tag}-2025!`;
  const username = `${tag}_${suffix}`;
  expectData(
    await ctx.admin.POST('/api/v1/users', {
      body: { username, password, nombre: 'Pes', apellido: 'Tañas', email: `${username}@example.test`, rol: 'supervisor' },
    }),
    201,
  );
  const { client, store } = await ctx.signIn(username, password);
  const me = expectData(await client.GET('/api/v1/auth/me'), 200);
  const signedIn = store.get();
  if (!signedIn) throw new Error('not signed in');
  return { stale: { accessToken: ctx.expiredAccessToken(me), refreshToken: signedIn.refreshToken }, username };
}

const today = (): string => new Date().toISOString().slice(0, 10);
const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export const FLOWS: Flow[] = [
  {
    name: 'sign in, who am I, wrong password',
    async run(ctx) {
      const me = expectData(await ctx.admin.GET('/api/v1/auth/me'), 200);
      assert.equal(me.username, ctx.adminCredentials.username);
      assert.ok(me.permisos.includes('administracion:roles:ver'));
      const wrong = await ctx.anonymous.POST('/api/v1/auth/login', {
        body: { username: ctx.adminCredentials.username, password: 'not-the-password' },
      });
      expectProblem(wrong, 401, 'credenciales_invalidas');
      expectProblem(await ctx.anonymous.GET('/api/v1/auth/me'), 401, 'no_autenticado');
    },
  },
  {
    name: '401 → refresh → retry: an expired access token is renewed once and the call answered',
    async run(ctx) {
      // a user of its own: signing out ends every session of the caller, the shared admin client's too
      const tag = ctx.tag();
      const password = `Clave-${tag}-2025!`;
      expectData(
        await ctx.admin.POST('/api/v1/users', {
          body: { username: `${tag}_ref`, password, nombre: 'Re', apellido: 'Fresh', email: `${tag}_ref@example.test`, rol: 'supervisor' },
        }),
        201,
      );
      const { client, store } = await ctx.signIn(`${tag}_ref`, password);
      const me = expectData(await client.GET('/api/v1/auth/me'), 200);
      const before = store.get();
      if (!before) throw new Error('not signed in');
      const stale: Tokens = { accessToken: ctx.expiredAccessToken(me), refreshToken: before.refreshToken };
      store.set(stale);
      expectProblem(await ctx.anonymous.GET('/api/v1/auth/me', { headers: { Authorization: `Bearer ${stale.accessToken}` } }), 401, 'no_autenticado');
      // three calls at once: one refresh for all (a second use of a refresh token would end the session)
      const answers = await Promise.all([client.GET('/api/v1/auth/me'), client.GET('/api/v1/roles'), client.GET('/api/v1/permisos')]);
      for (const answer of answers) assert.equal(answer.response.status, 200);
      const after = store.get();
      assert.ok(after && after.refreshToken !== before.refreshToken && after.accessToken !== stale.accessToken);
      // bodiless POST: openapi-fetch sends no Content-Type, so nothing to refuse
      assert.equal((await client.POST('/api/v1/auth/logout')).response.status, 204);
    },
  },
  {
    name: '401 → refresh → retry: a retried call refused again clears the store and ends the session once',
    async run(ctx) {
      const { stale } = await staleSession(ctx, 'ret');
      const store = memoryTokenStore(stale);
      let sessionEnded = 0;
      let reused = false;
      // another holder of the same pair refreshes right after this client did, with the token just spent:
      // reuse detection ends the session, so the client's retry with its new access token is refused
      const racedFetch: typeof globalThis.fetch = async (input, init) => {
        const response = await globalThis.fetch(input, init);
        if (!reused && response.ok && urlOf(input).endsWith('/api/v1/auth/refresh')) {
          reused = true;
          expectProblem(await ctx.anonymous.POST('/api/v1/auth/refresh', { body: stale }), 401, 'refresh_invalido');
        }
        return response;
      };
      const client = createAuthenticatedClient({
        baseUrl: ctx.baseUrl,
        store,
        fetch: racedFetch,
        onSessionEnded: () => {
          sessionEnded += 1;
        },
      });
      expectProblem(await client.GET('/api/v1/auth/me'), 401, 'no_autenticado');
      assert.ok(reused);
      assert.equal(store.get(), undefined);
      assert.equal(sessionEnded, 1);
      // signed out now: the next call goes without a token, refreshes nothing and ends nothing again
      expectProblem(await client.GET('/api/v1/auth/me'), 401, 'no_autenticado');
      assert.equal(sessionEnded, 1);
    },
  },
  {
    name: '401 → refresh → retry: two tabs sharing one store and one lock refresh once for all their calls and keep the session',
    async run(ctx) {
      const { stale, username } = await staleSession(ctx, 'tab');
      const shared = memoryTokenStore(stale);
      let tail: Promise<void> = Promise.resolve();
      const lock: RefreshLock = (task) => {
        const run = tail.then(task);
        tail = run.catch(() => undefined);
        return run;
      };
      let refreshes = 0;
      const countingFetch: typeof globalThis.fetch = (input, init) => {
        if (urlOf(input).endsWith('/api/v1/auth/refresh')) refreshes += 1;
        return globalThis.fetch(input, init);
      };
      const [tabA, tabB] = [0, 1].map(() => createAuthenticatedClient({ baseUrl: ctx.baseUrl, store: shared, lock, fetch: countingFetch }));
      if (!tabA || !tabB) throw new Error('no tabs');
      const answers = await Promise.all([
        tabA.GET('/api/v1/auth/me'),
        tabB.GET('/api/v1/auth/me'),
        tabA.GET('/api/v1/roles'),
        tabB.GET('/api/v1/permisos'),
      ]);
      equalJson(
        answers.map((a) => a.response.status),
        [200, 200, 200, 200],
      );
      // each tab settles its 401 under the lock; the later ones find the pair already rotated and take it
      assert.equal(refreshes, 1);
      assert.notEqual(shared.get()?.refreshToken, stale.refreshToken);
      assert.equal(expectData(await tabB.GET('/api/v1/auth/me'), 200).username, username);
    },
  },
  {
    name: 'users: create, find with search and sort, update, deactivate and reactivate',
    async run(ctx) {
      const tag = ctx.tag();
      const created = await ctx.admin.POST('/api/v1/users', {
        body: {
          username: `${tag}_ana`,
          password: `Clave-${tag}-2025!`,
          nombre: 'Ana',
          apellido: 'Zeta',
          email: `${tag}_ana@example.test`,
          rol: 'cajero',
        },
      });
      const ana = expectData(created, 201);
      assert.equal(created.response.headers.get('location'), `/api/v1/users/${ana.id}`);
      expectData(
        await ctx.admin.POST('/api/v1/users', {
          body: {
            username: `${tag}_bea`,
            password: `Clave-${tag}-2025!`,
            nombre: 'Bea',
            apellido: 'Alfa',
            email: `${tag}_bea@example.test`,
            rol: 'cajero',
          },
        }),
        201,
      );
      const page = expectData(await ctx.admin.GET('/api/v1/users', { params: { query: { search: tag, sort: 'apellido', pageSize: 10 } } }), 200);
      equalJson(
        page.items.map((u) => u.username),
        [`${tag}_bea`, `${tag}_ana`],
      );
      assert.equal(page.total, 2);
      const bad = await ctx.admin.GET('/api/v1/users', { params: { query: { sort: 'password' } } });
      const problem = expectProblem(bad, 400, 'validacion');
      assert.equal(first(problem.errors ?? [], 'field error').field, 'sort');
      const updated = expectData(
        await ctx.admin.PUT('/api/v1/users/{id}', {
          params: { path: { id: ana.id } },
          body: { nombre: 'Ana María', apellido: 'Zeta', email: ana.email, rol: 'vendedor' },
        }),
        200,
      );
      assert.equal(updated.rol, 'vendedor');
      const off = expectData(await ctx.admin.POST('/api/v1/users/{id}/deactivate', { params: { path: { id: ana.id } } }), 200);
      assert.equal(off.activo, false);
      const on = expectData(await ctx.admin.POST('/api/v1/users/{id}/reactivate', { params: { path: { id: ana.id } } }), 200);
      assert.equal(on.activo, true);
      expectProblem(await ctx.admin.GET('/api/v1/users/{id}', { params: { path: { id: 2_000_000_000 } } }), 404, 'no_encontrado');
    },
  },
  {
    name: 'roles: a role picker for a supervisor, then create, update, permissions and deactivate as admin',
    async run(ctx) {
      const tag = ctx.tag();
      const password = `Clave-${tag}-2025!`;
      expectData(
        await ctx.admin.POST('/api/v1/users', {
          body: { username: `${tag}_sup`, password, nombre: 'Sup', apellido: 'Ervisor', email: `${tag}_sup@example.test`, rol: 'supervisor' },
        }),
        201,
      );
      const supervisor = (await ctx.signIn(`${tag}_sup`, password)).client;
      const picker = expectData(await supervisor.GET('/api/v1/roles', { params: { query: { search: 'CAJ' } } }), 200);
      equalJson(
        picker.map((r) => r.codigo),
        ['cajero'],
      );
      expectProblem(await supervisor.POST('/api/v1/roles', { body: { codigo: `r_${tag}`, nombre: 'No' } }), 403, 'permiso_denegado');

      const codigo = `rol_${tag}`;
      const created = await ctx.admin.POST('/api/v1/roles', { body: { codigo, nombre: 'Rol de prueba', descripcion: 'flows' } });
      assert.equal(expectData(created, 201).codigo, codigo);
      assert.equal(created.response.headers.get('location'), `/api/v1/roles/${codigo}`);
      expectData(await ctx.admin.PUT('/api/v1/roles/{codigo}', { params: { path: { codigo } }, body: { nombre: 'Rol renombrado' } }), 200);
      const catalog = expectData(await ctx.admin.GET('/api/v1/permisos'), 200);
      const someCodes = catalog.map((p) => p.codigo).filter((c) => c.startsWith('catalogo:'));
      const replaced = expectData(
        await ctx.admin.PUT('/api/v1/roles/{codigo}/permisos', { params: { path: { codigo } }, body: { permisos: someCodes } }),
        200,
      );
      equalJson(replaced.permisos, [...someCodes].sort());
      const read = expectData(await supervisor.GET('/api/v1/roles/{codigo}/permisos', { params: { path: { codigo } } }), 200);
      equalJson(read.permisos, replaced.permisos);
      const gone = await ctx.admin.DELETE('/api/v1/roles/{codigo}', { params: { path: { codigo } } });
      assert.equal(gone.response.status, 204);
      const role = expectData(await ctx.admin.GET('/api/v1/roles/{codigo}', { params: { path: { codigo } } }), 200);
      assert.equal(role.activo, false);
      const problem = expectProblem(await ctx.admin.GET('/api/v1/roles/{codigo}', { params: { path: { codigo: 'Not-A-Code' } } }), 400, 'validacion');
      assert.ok(problem.correlationId.length > 0);
    },
  },
  {
    name: 'overrides: grant and deny on a user, read the effective permissions',
    async run(ctx) {
      const tag = ctx.tag();
      const user = expectData(
        await ctx.admin.POST('/api/v1/users', {
          body: {
            username: `${tag}_ovr`,
            password: `Clave-${tag}-2025!`,
            nombre: 'Over',
            apellido: 'Ride',
            email: `${tag}_ovr@example.test`,
            rol: 'supervisor',
          },
        }),
        201,
      );
      const path = { params: { path: { id: user.id } } };
      expectData(
        await ctx.admin.PUT('/api/v1/users/{id}/permisos/overrides', {
          ...path,
          body: { granted: ['administracion:auditoria:ver'], denied: ['administracion:medios:gestionar'] },
        }),
        200,
      );
      const view = expectData(await ctx.admin.GET('/api/v1/users/{id}/permisos', path), 200);
      assert.ok(view.efectivos.includes('administracion:auditoria:ver'));
      assert.ok(!view.efectivos.includes('administracion:medios:gestionar'));
      equalJson(view.denied, ['administracion:medios:gestionar']);
      const both = await ctx.admin.PUT('/api/v1/users/{id}/permisos/overrides', {
        ...path,
        body: { granted: ['catalogo:rubros:gestionar'], denied: ['catalogo:rubros:gestionar'] },
      });
      expectProblem(both, 400, 'validacion');
    },
  },
  {
    name: 'medios and secciones: create, search, update, a seccion of an enumerated tipo, deactivate',
    async run(ctx) {
      const TAG = ctx.tag().toUpperCase();
      const medio = expectData(await ctx.admin.POST('/api/v1/admin/medios', { body: { codigo: `M_${TAG}`, nombre: `Diario ${TAG}` } }), 201);
      const found = expectData(await ctx.admin.GET('/api/v1/admin/medios', { params: { query: { search: `diario ${TAG.toLowerCase()}` } } }), 200);
      equalJson(
        found.map((m) => m.id),
        [medio.id],
      );
      expectData(
        await ctx.admin.PUT('/api/v1/admin/medios/{id}', { params: { path: { id: medio.id } }, body: { nombre: `Diario ${TAG} Renovado` } }),
        200,
      );
      const tipo: Schemas['SeccionTipo'] = 'clasificados';
      const seccion = expectData(
        await ctx.admin.POST('/api/v1/admin/secciones', { body: { medioId: medio.id, codigo: 'CLASIF', nombre: 'Clasificados', tipo } }),
        201,
      );
      assert.equal(seccion.tipo, tipo);
      expectProblem(await ctx.admin.POST('/api/v1/admin/medios', { body: { codigo: `M_${TAG}`, nombre: 'Otro' } }), 409, 'duplicado');
      const off = expectData(await ctx.admin.POST('/api/v1/admin/medios/{id}/deactivate', { params: { path: { id: medio.id } } }), 200);
      assert.equal(off.activo, false);
      const late = await ctx.admin.POST('/api/v1/admin/secciones', { body: { medioId: medio.id, codigo: 'OTRA', nombre: 'Otra', tipo: 'digital' } });
      expectProblem(late, 409, 'medio_inactivo');
    },
  },
  {
    name: 'catalog and prices: rubros, a product type, a product, a price history and the price in force',
    async run(ctx) {
      const TAG = ctx.tag().toUpperCase();
      const root = expectData(await ctx.admin.POST('/api/v1/admin/rubros', { body: { nombre: `Rubro ${TAG}` } }), 201);
      const child = expectData(await ctx.admin.POST('/api/v1/admin/rubros', { body: { nombre: 'Autos', parentId: root.id } }), 201);
      assert.equal(child.nivel, 2);
      const tree = expectData(await ctx.admin.GET('/api/v1/admin/rubros/tree'), 200);
      const node = tree.find((n) => n.id === root.id);
      equalJson(
        node?.hijos.map((h) => h.id),
        [child.id],
      );
      const type = expectData(
        await ctx.admin.POST('/api/v1/admin/product-types', { body: { codigo: `PT_${TAG}`, nombre: 'Aviso clasificado' } }),
        201,
      );
      const created = await ctx.admin.POST('/api/v1/admin/products', {
        body: { codigo: `P_${TAG}`, nombre: 'Aviso de autos', rubroId: child.id, productTypeId: type.id },
      });
      const product = expectData(created, 201);
      assert.equal(created.response.headers.get('location'), `/api/v1/products/${product.id}`);
      const listed = expectData(await ctx.admin.GET('/api/v1/products', { params: { query: { search: TAG, sort: '-createdAt' } } }), 200);
      equalJson(
        listed.items.map((p) => p.id),
        [product.id],
      );
      const types = expectData(await ctx.admin.GET('/api/v1/product-types', { params: { query: { search: TAG, sort: 'nombre' } } }), 200);
      assert.equal(first(types.items, 'product type').id, type.id);

      const id = { params: { path: { id: product.id } } };
      const start = today();
      const price = await ctx.admin.POST('/api/v1/admin/products/{id}/prices', { ...id, body: { fechaVigencia: start, monto: 1500.5 } });
      const opening = expectData(price, 201);
      assert.equal(price.response.headers.get('location'), `/api/v1/products/${product.id}/prices/${opening.id}`);
      expectData(
        await ctx.admin.POST('/api/v1/admin/products/{id}/prices', { ...id, body: { fechaVigencia: addDays(start, 30), monto: 1800 } }),
        201,
      );
      const stale = await ctx.admin.POST('/api/v1/admin/products/{id}/prices', { ...id, body: { fechaVigencia: addDays(start, 10), monto: 1 } });
      expectProblem(stale, 409, 'precio_no_posterior');
      const history = expectData(await ctx.admin.GET('/api/v1/products/{id}/prices', id), 200);
      equalJson(
        history.map((p) => p.monto),
        [1800, 1500.5],
      );
      const inForce = expectData(
        await ctx.admin.GET('/api/v1/products/{id}/prices/vigente', { params: { path: { id: product.id }, query: { fecha: addDays(start, 1) } } }),
        200,
      );
      assert.equal(inForce.monto, 1500.5);
      const before = await ctx.admin.GET('/api/v1/products/{id}/prices/vigente', {
        params: { path: { id: product.id }, query: { fecha: addDays(start, -1) } },
      });
      expectProblem(before, 404, 'sin_precio_vigente');
    },
  },
  {
    name: 'lost updates: a change based on a stale ETag is refused with 412 version_obsoleta and nothing changes',
    async run(ctx) {
      const codigo = `etag_${ctx.tag()}`;
      expectData(await ctx.admin.POST('/api/v1/roles', { body: { codigo, nombre: 'Original' } }), 201);
      const path = { path: { codigo } };
      const read = await ctx.admin.GET('/api/v1/roles/{codigo}', { params: path });
      const etag = read.response.headers.get('etag');
      if (etag === null) throw new Error('no ETag on a single-resource read');
      const saved = await ctx.admin.PUT('/api/v1/roles/{codigo}', {
        params: { ...path, header: { 'If-Match': etag } },
        body: { nombre: 'Primera edición' },
      });
      assert.equal(expectData(saved, 200).nombre, 'Primera edición');
      assert.notEqual(saved.response.headers.get('etag'), etag);
      // a second editor still holding the first ETag
      const stale = await ctx.admin.PUT('/api/v1/roles/{codigo}', {
        params: { ...path, header: { 'If-Match': etag } },
        body: { nombre: 'Segunda edición' },
      });
      expectProblem(stale, 412, 'version_obsoleta');
      assert.equal(expectData(await ctx.admin.GET('/api/v1/roles/{codigo}', { params: path }), 200).nombre, 'Primera edición');
    },
  },
  {
    name: 'audit: page through the trail with nextCursor, filtered by action and target',
    async run(ctx) {
      const TAG = ctx.tag().toUpperCase();
      const medio = expectData(await ctx.admin.POST('/api/v1/admin/medios', { body: { codigo: `AU_${TAG}`, nombre: 'Audit 0' } }), 201);
      for (const n of [1, 2, 3, 4, 5]) {
        expectData(await ctx.admin.PUT('/api/v1/admin/medios/{id}', { params: { path: { id: medio.id } }, body: { nombre: `Audit ${n}` } }), 200);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const query = {
          action: 'medio.update',
          targetType: 'medio',
          targetId: String(medio.id),
          limit: 2,
          ...(cursor === undefined ? {} : { cursor }),
        };
        const page = expectData(await ctx.admin.GET('/api/v1/audit/events', { params: { query } }), 200);
        for (const event of page.items) {
          assert.equal(event.action, 'medio.update');
          seen.push(`${event.occurredAt}#${event.id}`);
        }
        if (page.nextCursor === null) break;
        cursor = page.nextCursor;
      }
      assert.equal(seen.length, 5);
      equalJson(seen, [...new Set(seen)]);
    },
  },
  {
    name: 'sessions: two sign-ins are two sessions, one current; ending the other refuses its access token',
    async run(ctx) {
      const tag = ctx.tag();
      const password = `Clave-${tag}-2025!`;
      const username = `${tag}_ses`;
      expectData(
        await ctx.admin.POST('/api/v1/users', {
          body: { username, password, nombre: 'Ses', apellido: 'Iones', email: `${tag}_ses@example.test`, rol: 'cajero' },
        }),
        201,
      );
      const laptop = await ctx.signIn(username, password);
      const phone = await ctx.signIn(username, password);
      const listed = expectData(await phone.client.GET('/api/v1/auth/sessions'), 200);
      assert.equal(listed.length, 2);
      const current = listed.filter((s) => s.current);
      assert.equal(current.length, 1);
      const other = first(
        listed.filter((s) => !s.current),
        'other session',
      );
      assert.notEqual(other.id, first(current, 'current session').id);
      const laptopTokens = laptop.store.get();
      if (!laptopTokens) throw new Error('not signed in');
      // the laptop's token works until its session is ended from the phone
      expectData(await ctx.anonymous.GET('/api/v1/auth/me', { headers: { Authorization: `Bearer ${laptopTokens.accessToken}` } }), 200);
      const ended = await phone.client.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id: other.id } } });
      assert.equal(ended.response.status, 204);
      const left = expectData(await phone.client.GET('/api/v1/auth/sessions'), 200);
      equalJson(
        left.map((s) => ({ id: s.id, current: s.current })),
        [{ id: first(current, 'current session').id, current: true }],
      );
      expectProblem(
        await ctx.anonymous.GET('/api/v1/auth/me', { headers: { Authorization: `Bearer ${laptopTokens.accessToken}` } }),
        401,
        'no_autenticado',
      );
    },
  },
];
