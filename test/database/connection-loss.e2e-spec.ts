import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import pg from 'pg';
import { withDatabase } from '../../src/database/database-url.js';
import { expectProblem, TestApp } from '../support/test-app.js';
import type { Socket } from 'node:net';
import type { Pool, PoolClient } from 'pg';
import { dialectFor } from '../../src/database/dialects/index.js';
import { onlyOn, TestDatabase } from '../support/test-database.js';

/**
 * A pooled connection that the database ends while the service holds it between two statements:
 * a database that restarts or fails over during a request's transaction or a job's lock.
 * PostgreSQL sends its FATAL error while no query runs on that connection, and pg emits it as an
 * 'error' event on the client; pg-pool takes its own listener off a client it hands out, and an
 * 'error' event nobody listens to ends the process (seen once in the outage test: the service
 * exited when its database stopped). The pool here is built from the dialect's options, as the
 * service's pools are.
 */
describe('A pooled connection ended by the database while it is checked out', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await TestDatabase.create();
  });
  afterAll(async () => {
    await d.close();
  });

  onlyOn('postgres', "pg's clients and pool; the mssql pool reports a lost connection on the pool itself")(
    "fails that connection's next statement as a connection failure and leaves the process and the pool working",
    async () => {
      // TypeORM's driver keeps the pg Pool as `master`
      const pool = (d.db.driver as unknown as { master: Pool }).master;
      const client: PoolClient = await pool.connect();
      const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      // the socket's own 'close', not the client's 'error': a listener on the client would hide what is tested
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      const closed = new Promise((resolve) => socket.once('close', resolve));

      await d.query('SELECT pg_terminate_backend($1)', [pid]);
      await closed;
      await new Promise((resolve) => setImmediate(resolve));

      const failure: unknown = await client.query('SELECT 1').then(
        () => 'answered',
        (err: unknown) => err,
      );
      expect(dialectFor(d.engine).isConnectionFailure(failure)).toBe(true); // a 503 for a request, as any lost connection
      client.release(failure as Error);
      expect(await d.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    },
  );

  onlyOn('postgres', "TypeORM's PostgreSQL query runner releases itself on its client's 'error' event")(
    "fails a TypeORM query runner's next statement as a connection failure once it released itself",
    async () => {
      const runner = d.db.createQueryRunner();
      const [{ pid }] = (await runner.query('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
      const client = (await runner.connect()) as { once(event: 'error', listener: () => void): unknown };
      const lost = new Promise<void>((resolve) => client.once('error', () => resolve()));
      await d.query('SELECT pg_terminate_backend($1)', [pid]);
      await lost;
      const failure: unknown = await runner.query('SELECT 1').then(
        () => 'answered',
        (err: unknown) => err,
      );
      // what a request meets when its runner's connection was ended before its last statement
      expect((failure as Error).name).toBe('QueryRunnerAlreadyReleasedError');
      expect(dialectFor(d.engine).isConnectionFailure(failure)).toBe(true);
      expect(await d.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    },
  );
});

describe('A database that refuses connections', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t?.close());

  onlyOn('postgres', 'ALTER DATABASE … ALLOW_CONNECTIONS is PostgreSQL’s')(
    'answers 503 servicio_no_disponible with Retry-After, not 500, and serves again once it accepts them',
    async () => {
      const url = t.config.databaseUrl!;
      const name = (await t.query<{ name: string }>('SELECT current_database() AS name'))[0]!.name;
      const server = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
      await server.connect();
      const ident = `"${name.replace(/"/g, '""')}"`;
      try {
        await server.query(`ALTER DATABASE ${ident} ALLOW_CONNECTIONS false`);
        await server.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        // once the pool has dropped its ended connections, each request must open a new one: refused
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let i = 0; i < 3; i++) {
          const refused = await t.get('/api/v1/users', { token: admin });
          expectProblem(refused, 503, 'servicio_no_disponible');
          expect(refused.headers['retry-after']).toBeDefined();
        }
      } finally {
        await server.query(`ALTER DATABASE ${ident} ALLOW_CONNECTIONS true`);
        await server.end();
      }
      expect((await t.get('/api/v1/users', { token: admin })).status).toBe(200);
    },
  );
});

describe('A transaction the database aborts to settle a deadlock', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => ({ t, admin } = await TestApp.withAdmin()));
  afterAll(() => t?.close());

  onlyOn('postgres', 'a trigger and advisory locks of PostgreSQL stage the deadlock')(
    'answers 503 servicio_no_disponible with Retry-After, not 500, and writes nothing',
    async () => {
      const medio = (await t.post('/api/v1/admin/medios', { codigo: `DL_${Date.now() % 1e8}`, nombre: 'Antes' }, { token: admin })).body as {
        id: number;
      };
      // the request's UPDATE waits for an advisory lock that another transaction holds, and that
      // transaction then waits for the row the request has locked: a deadlock, which the request's
      // backend detects first (the other one waits 30 s before it looks)
      await t.query(
        `CREATE FUNCTION test_wait_lock() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$`,
      );
      await t.query(`CREATE TRIGGER test_wait_lock BEFORE UPDATE ON medios FOR EACH ROW EXECUTE FUNCTION test_wait_lock()`);
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query(`SET LOCAL deadlock_timeout = '30s'`);
        await other.query('SELECT pg_advisory_xact_lock(4242)');
        const auditBefore = (await t.auditEvents({ action: 'medio.update' })).length;
        const pending = t.put(`/api/v1/admin/medios/${medio.id}`, { nombre: 'Después' }, { token: admin });
        for (let i = 0; i < 200; i++) {
          // this database's wait for this lock only: other test files take advisory locks too
          const waiting = await other.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          if (waiting.rowCount) break;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const otherLock = other.query('SELECT id FROM medios WHERE id = $1 FOR UPDATE', [medio.id]);
        const res = await pending;
        expectProblem(res, 503, 'servicio_no_disponible');
        expect(res.headers['retry-after']).toBeDefined();
        await otherLock;
        await other.query('ROLLBACK');
        expect((await t.get(`/api/v1/admin/medios/${medio.id}`, { token: admin })).body.nombre).toBe('Antes');
        expect((await t.auditEvents({ action: 'medio.update' })).length).toBe(auditBefore);
      } finally {
        await other.end();
        await t.query('DROP TRIGGER IF EXISTS test_wait_lock ON medios');
        await t.query('DROP FUNCTION IF EXISTS test_wait_lock()');
      }
    },
  );
});

describe('A statement the database cancels for running past the statement timeout', () => {
  let t: TestApp, admin: string;
  beforeAll(async () => {
    t = await TestApp.create({ env: { DB_STATEMENT_TIMEOUT_MS: '400' } });
    admin = await t.adminToken();
  });
  afterAll(() => t?.close());

  onlyOn('postgres', 'a table lock taken from outside the service stalls its statements')(
    'answers 503 servicio_no_disponible with Retry-After, not 500, writes nothing, and serves again once the lock is gone',
    async () => {
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query('LOCK TABLE medios IN ACCESS EXCLUSIVE MODE');
        const auditBefore = (await t.auditEvents({ action: 'medio.create' })).length;
        const read = await t.get('/api/v1/admin/medios', { token: admin });
        expectProblem(read, 503, 'servicio_no_disponible');
        expect(read.headers['retry-after']).toBeDefined();
        const create = await t.post('/api/v1/admin/medios', { codigo: `TO_${Date.now() % 1e8}`, nombre: 'x' }, { token: admin });
        expectProblem(create, 503, 'servicio_no_disponible');
        await other.query('ROLLBACK');
        expect((await t.auditEvents({ action: 'medio.create' })).length).toBe(auditBefore);
        expect((await t.get('/api/v1/admin/medios', { token: admin })).status).toBe(200);
      } finally {
        await other.end();
      }
    },
  );
});
