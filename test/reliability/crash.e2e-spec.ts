import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { installedCatalog } from '../support/installed-catalog.js';
import { ADMIN_PASSWORD, onlyOn } from '../support/test-app.js';
import {
  type Answer,
  LOG_DIR,
  adminLogin,
  call,
  ensureBuilt,
  leakedSecrets,
  scratchDatabase,
  startServer,
  type RunningServer,
} from './support/built-server.js';
import { recordFigures } from './support/figures.js';
import { argentinaDate } from './support/fixtures.js';
import { uid } from './support/reliability-app.js';

/**
 * Crash consistency: the built server (`node dist/src/main.js`) on a real PostgreSQL database,
 * 16 clients driving mutations of eleven kinds, SIGKILLed mid-flight, restarted on the same
 * database. Afterwards: every persisted change has its audit event, every create event points at
 * an existing row, every acknowledged write survived, and no refresh-token family is
 * half-rotated. Each change and its audit row share one transaction, so a kill can only lose both.
 */
const WORKERS = 16;
const MUTATIONS_BEFORE_KILL = 400;

/** audit action of a create → the table and the column its target_id names */
const CREATES: Record<string, { table: string; key: string }> = {
  'medio.create': { table: 'medios', key: 'id' },
  'seccion.create': { table: 'secciones', key: 'id' },
  'punto_de_venta.create': { table: 'puntos_de_venta', key: 'id' },
  'usuario.create': { table: 'users', key: 'id' },
  'rol.create': { table: 'roles', key: 'codigo' },
  'rubro.create': { table: 'rubros', key: 'id' },
  'tipo_producto.create': { table: 'product_types', key: 'id' },
  'producto.create': { table: 'products', key: 'id' },
  'tipo_iva.create': { table: 'tipos_iva', key: 'id' },
};

interface Ack {
  table: string;
  key: string;
  value: string;
}

describe('crash consistency: SIGKILL of the built server mid-flight', () => {
  let main: string;
  let db: { url: string; owner: DataSource; drop: () => Promise<void> };
  let server: RunningServer | undefined;

  beforeAll(async () => {
    main = ensureBuilt();
    db = await scratchDatabase('crash');
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
    await db?.drop();
  });

  onlyOn('postgres', 'reads the store with PostgreSQL SQL after the crash')(
    'keeps every change with its audit event, every create event with its row, every acknowledged write, and no half-rotated refresh token',
    async () => {
      server = await startServer(main, db.url, 'crash-before');
      const port = server.port;
      const admin = await adminLogin(port);
      const token = admin.accessToken;
      const ok = async (res: Promise<Answer>, what: string) => {
        const a = await res;
        if (a.status >= 300) throw new Error(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
        return a.body;
      };
      const medio = await ok(call(port, 'POST', '/api/v1/admin/medios', { token, body: { codigo: `BASE_${uid()}`, nombre: 'Base' } }), 'base medio');
      const rubro = await ok(call(port, 'POST', '/api/v1/admin/rubros', { token, body: { nombre: `Base ${uid()}`, parentId: null } }), 'base rubro');
      const type = await ok(
        call(port, 'POST', '/api/v1/admin/product-types', { token, body: { codigo: `BASE_${uid()}`, nombre: 'Base', descripcion: '' } }),
        'base type',
      );

      // per client: a product for its prices, a medio to rename and toggle, a session to rotate
      // (one after the other: concurrent sign-ins of one username count against its throttle)
      interface Client {
        product: { id: number };
        medio: { id: number };
        session: { accessToken: string; refreshToken: string };
        days: number;
        active: boolean;
      }
      const clients: Client[] = [];
      for (let i = 0; i < WORKERS; i++) {
        clients.push({
          product: await ok(
            call(port, 'POST', '/api/v1/admin/products', {
              token,
              body: { codigo: `CP_${i}_${uid()}`, nombre: 'P', rubroId: rubro.id, productTypeId: type.id },
            }),
            'product',
          ),
          medio: await ok(call(port, 'POST', '/api/v1/admin/medios', { token, body: { codigo: `CM_${i}_${uid()}`, nombre: 'M' } }), 'medio'),
          session: (await ok(call(port, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } }), 'login')) as {
            accessToken: string;
            refreshToken: string;
          },
          days: 1,
          active: true,
        });
      }

      let afip = 0;
      const acks: Ack[] = [];
      let started = 0;
      let completed = 0;
      let inFlight = 0;
      let killed = false;
      const kinds: Array<(c: Client) => Promise<void>> = [
        async () => {
          const a = await call(port, 'POST', '/api/v1/admin/medios', { token, body: { codigo: `K_${uid()}`, nombre: 'Nuevo' } });
          if (a.status === 201) acks.push({ table: 'medios', key: 'id', value: String(a.body.id) });
        },
        async () => {
          const a = await call(port, 'POST', '/api/v1/admin/secciones', {
            token,
            body: { medioId: medio.id, codigo: `K_${uid()}`, nombre: 'Nueva', tipo: 'digital' },
          });
          if (a.status === 201) acks.push({ table: 'secciones', key: 'id', value: String(a.body.id) });
        },
        async () => {
          const a = await call(port, 'POST', '/api/v1/admin/puntos-de-venta', {
            token,
            body: { medioId: medio.id, numeroAFIP: ++afip, nombre: 'PDV', domicilio: 'Calle' },
          });
          if (a.status === 201) acks.push({ table: 'puntos_de_venta', key: 'id', value: String(a.body.id) });
        },
        async () => {
          const username = `k_${uid().toLowerCase()}`;
          const a = await call(port, 'POST', '/api/v1/users', {
            token,
            body: { username, password: `Clave-${uid()}-larga`, nombre: 'K', apellido: 'K', email: `${username}@example.test`, rol: 'cajero' },
          });
          if (a.status === 201) acks.push({ table: 'users', key: 'id', value: String(a.body.id) });
        },
        async () => {
          const codigo = `k_${uid().toLowerCase()}`;
          const a = await call(port, 'POST', '/api/v1/roles', { token, body: { codigo, nombre: 'K', descripcion: '' } });
          if (a.status === 201) acks.push({ table: 'roles', key: 'codigo', value: codigo });
        },
        async () => {
          const a = await call(port, 'POST', '/api/v1/admin/rubros', { token, body: { nombre: `K ${uid()}`, parentId: rubro.id } });
          if (a.status === 201) acks.push({ table: 'rubros', key: 'id', value: String(a.body.id) });
        },
        async () => {
          const a = await call(port, 'POST', '/api/v1/admin/product-types', { token, body: { codigo: `K_${uid()}`, nombre: 'K', descripcion: '' } });
          if (a.status === 201) acks.push({ table: 'product_types', key: 'id', value: String(a.body.id) });
        },
        async (c) => {
          const a = await call(port, 'POST', `/api/v1/admin/products/${c.product.id}/prices`, {
            token,
            body: { fechaVigencia: argentinaDate(c.days++), monto: 10 + c.days },
          });
          if (a.status === 201) acks.push({ table: 'product_prices', key: 'id', value: String(a.body.id) });
        },
        async (c) => {
          await call(port, 'PUT', `/api/v1/admin/medios/${c.medio.id}`, { token, body: { nombre: `Renombrado ${uid()}` } });
        },
        async (c) => {
          c.active = !c.active;
          await call(port, 'POST', `/api/v1/admin/medios/${c.medio.id}/${c.active ? 'reactivate' : 'deactivate'}`, { token });
        },
        async (c) => {
          const a = await call(port, 'POST', '/api/v1/auth/refresh', { body: c.session });
          if (a.status === 200) c.session = { accessToken: a.body.accessToken, refreshToken: a.body.refreshToken };
        },
      ];

      let killAt = 0;
      await new Promise<void>((allStopped) => {
        let running = WORKERS;
        clients.forEach((client, w) => {
          void (async () => {
            for (let n = w; !killed; n++) {
              started++;
              inFlight++;
              try {
                await kinds[n % kinds.length]!(client);
              } finally {
                inFlight--;
                completed++;
              }
              if (!killed && completed >= MUTATIONS_BEFORE_KILL) {
                killed = true;
                killAt = inFlight; // the other clients' requests, sent and unanswered
                server!.child.kill('SIGKILL');
              }
            }
            if (--running === 0) allStopped();
          })();
        });
      });
      const exit = await server.exited;
      expect(exit.signal).toBe('SIGKILL');

      // restart on the same database: it must start and serve
      const firstOutput = server.output();
      server = await startServer(main, db.url, 'crash-after');
      const again = await adminLogin(server.port);
      expect((await call(server.port, 'GET', '/api/v1/admin/medios', { token: again.accessToken })).status).toBe(200);

      const orphans = await findOrphans(db.owner, acks);
      const secrets: Array<[string, string]> = [
        ['the admin password', ADMIN_PASSWORD],
        ['an access token', token],
        ['a refresh token', admin.refreshToken],
        ...clients.map((c) => ['a rotated refresh token', c.session.refreshToken] as [string, string]),
      ];
      const leaks = leakedSecrets(`${firstOutput}\n${server.output()}`, secrets);
      recordFigures('crash', `crash: ${killAt} mutations in flight, ${orphans.total} orphans`, {
        clients: WORKERS,
        mutationKinds: kinds.length,
        mutationsStarted: started,
        acknowledgedCreates: acks.length,
        inFlightAtKill: killAt,
        orphans: orphans.total,
        details: orphans.details,
        secretsInServerLogs: leaks.length,
        logs: LOG_DIR,
      });
      expect(killAt).toBeGreaterThan(0);
      expect(orphans.details).toEqual({
        changesWithoutAuditEvent: [],
        createEventsWithoutRow: [],
        acknowledgedWritesLost: [],
        familiesWithSeveralActiveTokens: [],
        rotatedTokensWithoutSuccessor: [],
        pricesWithoutEvent: [],
        deactivationsWithoutEvent: [],
      });
      expect(leaks).toEqual([]);
    },
  );
});

async function findOrphans(owner: DataSource, acks: Ack[]) {
  const q = (sql: string, params: unknown[] = []) => owner.query(sql, params) as Promise<Array<Record<string, string>>>;
  const canonical = (await installedCatalog()).roles.map((r) => r.codigo);
  const changesWithoutAuditEvent: string[] = [];
  const createEventsWithoutRow: string[] = [];
  for (const [action, { table, key }] of Object.entries(CREATES)) {
    const exclude = table === 'users' ? `AND t.username <> 'admin'` : table === 'roles' ? `AND NOT (t.codigo = ANY($2::text[]))` : '';
    const missing = await q(
      `SELECT t.${key}::text AS k FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM audit_events e WHERE e.action = $1 AND e.target_id = t.${key}::text) ${exclude}`,
      table === 'roles' ? [action, canonical] : [action],
    );
    changesWithoutAuditEvent.push(...missing.map((m) => `${table} ${m.k}`));
    const dangling = await q(
      `SELECT e.target_id FROM audit_events e WHERE e.action = $1 AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.${key}::text = e.target_id)`,
      [action],
    );
    createEventsWithoutRow.push(...dangling.map((d) => `${action} ${d.target_id}`));
  }
  // prices: one producto.precio_add event per price of the product
  const pricesWithoutEvent = (
    await q(`SELECT p.product_id::text AS k FROM product_prices p GROUP BY p.product_id
             HAVING count(*) <> (SELECT count(*) FROM audit_events e WHERE e.action = 'producto.precio_add' AND e.target_id = p.product_id::text)`)
  ).map((r) => `product ${r.k}`);
  // an inactive medio was deactivated by an audited request
  const deactivationsWithoutEvent = (
    await q(
      `SELECT m.id::text AS k FROM medios m WHERE NOT m.activo AND NOT EXISTS (SELECT 1 FROM audit_events e WHERE e.action = 'medio.deactivate' AND e.target_id = m.id::text)`,
    )
  ).map((r) => `medio ${r.k}`);
  const acknowledgedWritesLost: string[] = [];
  for (const a of acks) {
    if (!(await q(`SELECT 1 FROM ${a.table} WHERE ${a.key}::text = $1`, [a.value])).length) acknowledgedWritesLost.push(`${a.table} ${a.value}`);
  }
  const familiesWithSeveralActiveTokens = (
    await q(`SELECT family_id::text AS f FROM refresh_tokens WHERE revoked_at IS NULL GROUP BY family_id HAVING count(*) > 1`)
  ).map((r) => r.f!);
  const rotatedTokensWithoutSuccessor = (
    await q(
      `SELECT t.id::text AS k FROM refresh_tokens t WHERE t.revoked_reason = 'rotated' AND NOT EXISTS (SELECT 1 FROM refresh_tokens c WHERE c.parent_id = t.id)`,
    )
  ).map((r) => r.k!);
  const details = {
    changesWithoutAuditEvent,
    createEventsWithoutRow,
    acknowledgedWritesLost,
    familiesWithSeveralActiveTokens,
    rotatedTokensWithoutSuccessor,
    pricesWithoutEvent,
    deactivationsWithoutEvent,
  };
  return { total: Object.values(details).reduce((n, list) => n + list.length, 0), details };
}
