import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app.factory.js';
import { loadAppConfig } from '../../src/common/config/index.js';
import { runMigrations } from '../../src/database/database-runtime.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { REPLICA_CHECK_INTERVAL_MS, ReplicaReads } from '../../src/database/replica-reads.js';
import { recordFigures } from '../reliability/support/figures.js';
import { ADMIN_PASSWORD } from '../support/test-env.js';
import { type PgServer, startPrimaryAndStandby, waitUntil } from './support/pg-standby.js';

/**
 * The read replica against a real PostgreSQL streaming standby made here with pg_basebackup: the
 * service writes on the primary, the audit query and the paged lists are answered by the standby
 * (proved by pausing the standby's replay: its answer misses a write the primary has), a standby
 * lagging beyond DATABASE_READ_MAX_LAG_SECONDS or stopped sends those reads back to the primary,
 * and the answer stays 200.
 */
const DATABASE = 'medios';
const REPLICA_APP = 'medios-admin-api-replica';

interface Service {
  app: NestFastifyApplication;
  reads: ReplicaReads;
  token: string;
}

async function startService(primary: PgServer, standby: PgServer, env: Record<string, string> = {}): Promise<Service> {
  const config = loadAppConfig({
    ...process.env,
    DATABASE_URL: primary.url(DATABASE),
    DATABASE_READ_URL: standby.url(DATABASE),
    ...env,
  });
  const app = await createApp({
    config,
    database: { url: primary.url(DATABASE), engine: 'postgres', dialect: dialectFor('postgres'), embedded: false, stop: async () => {} },
  });
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin', password: ADMIN_PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`admin login: ${login.statusCode} ${login.body}`);
  return { app, reads: app.get(ReplicaReads), token: login.json().accessToken };
}

async function get(s: Service, url: string): Promise<{ status: number; body: any }> {
  const res = await s.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${s.token}` } });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
}

/** Creates a product type (one audited write on the primary); answers its codigo. */
async function write(s: Service): Promise<string> {
  const codigo = `R_${randomBytes(4).toString('hex').toUpperCase()}`;
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/v1/admin/product-types',
    headers: { authorization: `Bearer ${s.token}` },
    payload: { codigo, nombre: 'Réplica', descripcion: '' },
  });
  if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
  return codigo;
}

/** Whether the newest audit events answered by the service include the creation of `codigo`. */
async function auditShows(s: Service, codigo: string): Promise<boolean> {
  const res = await get(s, '/api/v1/audit/events?targetType=tipo_producto&limit=100');
  expect(res.status).toBe(200);
  return res.body.items.some((e: any) => JSON.stringify(e.metadata ?? {}).includes(codigo) || e.targetId === codigo);
}

async function listShows(s: Service, codigo: string): Promise<boolean> {
  const res = await get(s, `/api/v1/product-types?search=${codigo}`);
  expect(res.status).toBe(200);
  return res.body.items.some((t: any) => t.codigo === codigo);
}

/** Waits until the service measured the replica again (the lag is cached for REPLICA_CHECK_INTERVAL_MS). */
async function nextCheck(s: Service, read: () => Promise<unknown>): Promise<void> {
  const before = s.reads.lastState?.checkedAt ?? 0;
  await waitUntil(
    async () => {
      await read();
      return (s.reads.lastState?.checkedAt ?? 0) > before;
    },
    REPLICA_CHECK_INTERVAL_MS * 4,
    'a new lag measurement',
  );
}

describe('read replica: a PostgreSQL streaming standby serves the audit query and the paged lists', () => {
  let primary: PgServer;
  let standby: PgServer;
  let service: Service;
  let strict: Service;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    ({ primary, standby } = await startPrimaryAndStandby());
    await primary.query(`CREATE DATABASE ${DATABASE}`);
    await runMigrations(loadAppConfig(process.env), primary.url(DATABASE));
    service = await startService(primary, standby);
    // the same service with a lag limit of one second
    strict = await startService(primary, standby, { DATABASE_READ_MAX_LAG_SECONDS: '1' });
  });
  afterAll(async () => {
    await service?.app.close();
    await strict?.app.close();
    await standby?.destroy();
    await primary?.destroy();
    if (Object.keys(figures).length)
      recordFigures(
        'read-replica',
        `read replica: write visible on the standby after ${figures.replicationDelayMsMedian} ms (median of ${figures.replicationSamples}), ` +
          `measured lag ${figures.measuredLagSecondsMax} s at most, stopped standby -> ${figures.fallbackStatus}`,
        figures,
      );
  });

  it('a write through the service appears on the standby (streaming replication), and its lag is measured', async () => {
    expect((await standby.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r'))[0]!.r).toBe(true);
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      const codigo = await write(service);
      delays.push(
        await waitUntil(
          async () => (await standby.query('SELECT 1 FROM product_types WHERE codigo = $1', [codigo], DATABASE)).length === 1,
          10_000,
          `${codigo} on the standby`,
        ),
      );
    }
    await get(service, '/api/v1/audit/events?limit=1'); // the first routed read connects the replica pool
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) lags.push((await dialectFor('postgres').replicaLagSeconds(await replicaDataSource(service))) ?? -1);
    delays.sort((a, b) => a - b);
    Object.assign(figures, {
      replicationSamples: delays.length,
      replicationDelayMsMedian: Math.round(delays[Math.floor(delays.length / 2)]!),
      replicationDelayMsMax: Math.round(delays[delays.length - 1]!),
      measuredLagSecondsMax: Math.max(...lags),
    });
    expect(lags.every((l) => l >= 0 && l <= 1)).toBe(true);
  });

  it('the audit query and a paged list are answered by the standby: with its replay paused they miss a write the primary has', async () => {
    await write(service);
    await nextCheck(service, () => get(service, '/api/v1/audit/events?limit=1'));
    expect(service.reads.lastState).toMatchObject({ usable: true });
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      const codigo = await write(service);
      expect((await primary.query('SELECT 1 FROM product_types WHERE codigo = $1', [codigo], DATABASE)).length).toBe(1);
      expect(await auditShows(service, codigo)).toBe(false);
      // the standby's own view: a session of the service's replica pool ran the audit query
      const sessions = await standby.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = $2 AND query LIKE '%audit_events%'`,
        [REPLICA_APP, DATABASE],
      );
      expect(Number(sessions[0]!.n)).toBeGreaterThan(0);
      expect(await listShows(service, codigo)).toBe(false);
      await standby.query('SELECT pg_wal_replay_resume()');
      await waitUntil(() => auditShows(service, codigo), 10_000, 'the audit event through the resumed standby');
      expect(await listShows(service, codigo)).toBe(true);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()').catch(() => {});
    }
  });

  it('a standby lagging beyond DATABASE_READ_MAX_LAG_SECONDS is not used: the reads answer from the primary', async () => {
    await write(strict);
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      const codigo = await write(strict);
      // the replay stays behind the write while the time since the last replayed commit grows past 1 s
      const ms = await waitUntil(() => auditShows(strict, codigo), REPLICA_CHECK_INTERVAL_MS * 4, 'the fall-back to the primary');
      expect(strict.reads.lastState).toMatchObject({ usable: false });
      expect(strict.reads.lastState!.lagSeconds).toBeGreaterThan(1);
      expect(await listShows(strict, codigo)).toBe(true);
      figures.lagFallbackAfterMs = Math.round(ms);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
    await nextCheck(strict, () => get(strict, '/api/v1/audit/events?limit=1'));
    expect(strict.reads.lastState).toMatchObject({ usable: true });
  });

  it('a stopped standby makes the reads fall back to the primary: 200 and the newest rows, never an error', async () => {
    await standby.stop('immediate');
    try {
      const codigo = await write(service);
      const audit = await get(service, '/api/v1/audit/events?targetType=tipo_producto&limit=100');
      expect(audit.status).toBe(200);
      expect(await auditShows(service, codigo)).toBe(true);
      expect(await listShows(service, codigo)).toBe(true);
      for (const url of ['/api/v1/users', '/api/v1/products', '/api/v1/admin/puntos-de-venta']) expect((await get(service, url)).status).toBe(200);
      expect(service.reads.lastState).toMatchObject({ usable: false });
      figures.fallbackStatus = audit.status;
    } finally {
      await standby.start();
    }
    // back in use once it answers again
    await waitUntil(
      async () => {
        await get(service, '/api/v1/audit/events?limit=1');
        return service.reads.lastState?.usable === true;
      },
      30_000,
      'the restarted standby in use',
    );
  });
});

async function replicaDataSource(s: Service) {
  // the DataSource ReplicaReads keeps (a private field), for measuring the lag directly
  const ds = (s.reads as unknown as { replica?: import('typeorm').DataSource }).replica;
  if (!ds?.isInitialized) throw new Error('the replica DataSource is not connected');
  return ds;
}
