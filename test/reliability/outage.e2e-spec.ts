import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings } from '../../src/database/database-runtime.js';
import { withDatabase } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '../../src/database/embedded/embedded-postgres.js';
import { ADMIN_PASSWORD } from '../support/test-env.js';
import { type Answer, adminLogin, call, ensureBuilt, leakedSecrets, startServer, type RunningServer } from './support/built-server.js';
import { recordFigures } from './support/figures.js';
import { uid } from './support/reliability-app.js';

/**
 * Database outage: the built server on a PostgreSQL of its own (an embedded cluster in a temp
 * dir), under load from six clients; the database is stopped for 10 s and started again on the
 * same port. While it is down every request is answered quickly — 503 `servicio_no_disponible`
 * with Retry-After, the probes 503 — and the process keeps running; once it is back, requests
 * succeed again within 5 s without restarting the service.
 */
const OUTAGE_MS = 10_000;
const MAX_ANSWER_MS = 5_000;
const MAX_RECOVERY_MS = 5_000;
const CLIENTS = 6;
const PACE_MS = 25; // between one client's requests, so the log stays readable

interface Sample {
  path: string;
  method: string;
  start: number;
  answer: Answer;
}

describe('database outage: 10 s without PostgreSQL under load', () => {
  let main: string;
  let dataDir: string;
  let pg: EmbeddedPostgresHandle | undefined;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    main = ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'medios-outage-'));
    pg = await startEmbeddedPostgres({ dataDir });
    const config = loadAppConfig(process.env);
    const admin = await new DataSource(
      dialectFor('postgres').dataSourceOptions(connectionSettings(config, pg.url, 'medios-reliability-admin')),
    ).initialize();
    try {
      await admin.query('CREATE DATABASE medios_outage');
    } finally {
      await admin.destroy();
    }
  }, 240_000);
  afterAll(async () => {
    await server?.kill();
    await pg?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 problem documents within 5 s while the database is down, reports it on the probes, never exits, and recovers within 5 s of its return', async () => {
    // the server applies the migrations itself at start (a fresh database)
    server = await startServer(main, withDatabase(pg!.url, 'medios_outage'), 'outage', { DB_POOL_SIZE: '8' });
    const port = server.port;
    const { accessToken: token, refreshToken } = await adminLogin(port);
    const requests: Array<[string, string, () => unknown]> = [
      ['GET', '/api/v1/admin/medios', () => undefined],
      ['POST', '/api/v1/admin/medios', () => ({ codigo: `OUT_${uid()}`, nombre: 'Durante la carga' })],
      ['GET', '/api/v1/auth/me', () => undefined],
      ['GET', '/health/ready', () => undefined],
      ['GET', '/health/audit', () => undefined],
      ['GET', '/health/live', () => undefined],
    ];
    const samples: Sample[] = [];
    let stop = false;
    const load = Promise.all(
      Array.from({ length: CLIENTS }, async (_v, c) => {
        for (let n = c; !stop; n++) {
          const [method, path, body] = requests[n % requests.length]!;
          const start = Date.now();
          const answer = await call(port, method, path, { token, body: body(), timeoutMs: 15_000 });
          samples.push({ method, path, start, answer });
          await new Promise((r) => setTimeout(r, PACE_MS));
        }
      }),
    );
    const waitFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

    await waitFor(2_000);
    const stopping = Date.now();
    await pg!.stop();
    const down = Date.now();
    await waitFor(OUTAGE_MS);
    const port0 = pg!.port;
    const restarting = Date.now();
    pg = await startEmbeddedPostgres({ dataDir, port: port0 });
    const up = Date.now();
    await waitFor(MAX_RECOVERY_MS + 3_000);
    stop = true;
    await load;

    const processAlive = server.child.exitCode === null && server.child.signalCode === null;
    const isDbBacked = (s: Sample) => s.path !== '/health/live';
    const before = samples.filter((s) => s.start + s.answer.ms < stopping);
    const during = samples.filter((s) => s.start >= down && s.start < restarting);
    const after = samples.filter((s) => s.start >= up);
    const firstSuccess = after.filter(isDbBacked).find((s) => s.answer.status >= 200 && s.answer.status < 300 && s.path !== '/health/audit');
    const recoveryMs = firstSuccess ? firstSuccess.start + firstSuccess.answer.ms - up : Number.POSITIVE_INFINITY;
    const settled = after.filter((s) => s.start >= up + MAX_RECOVERY_MS);

    const problems: string[] = [];
    for (const s of during) {
      const where = `${s.method} ${s.path} during the outage`;
      if (s.answer.ms > MAX_ANSWER_MS) problems.push(`${where} took ${Math.round(s.answer.ms)} ms`);
      if (s.path === '/health/live') {
        if (s.answer.status !== 200) problems.push(`${where}: ${s.answer.status}`);
      } else if (s.path.startsWith('/health/')) {
        if (s.answer.status !== 503 || s.answer.body?.status !== 'error')
          problems.push(`${where}: ${s.answer.status} ${JSON.stringify(s.answer.body)?.slice(0, 200)}`);
      } else if (
        s.answer.status !== 503 ||
        s.answer.body?.code !== 'servicio_no_disponible' ||
        !String(s.answer.headers.get('content-type')).startsWith('application/problem+json') ||
        !s.answer.headers.get('retry-after') ||
        !s.answer.headers.get('x-correlation-id')
      ) {
        problems.push(`${where}: ${s.answer.status} ${s.answer.error ?? ''} ${JSON.stringify(s.answer.body)?.slice(0, 200)}`);
      }
    }
    for (const s of [...before, ...settled]) {
      if (s.answer.status < 200 || s.answer.status >= 300)
        problems.push(
          `${s.method} ${s.path} with the database up: ${s.answer.status} ${s.answer.error ?? ''} ${JSON.stringify(s.answer.body)?.slice(0, 200)}`,
        );
    }
    const readyDuring = during.filter((s) => s.path === '/health/ready');
    const secrets: Array<[string, string]> = [
      ['the admin password', ADMIN_PASSWORD],
      ['the access token', token],
      ['the refresh token', refreshToken],
    ];
    const leaks = leakedSecrets(server.output(), secrets);

    const latencies = during.map((s) => s.answer.ms).sort((a, b) => a - b);
    recordFigures(
      'outage',
      `outage: ${during.length} requests while PostgreSQL was down ${Math.round((restarting - down) / 1000)} s, ${during.filter((s) => s.answer.status === 503).length} answered 503 (max ${Math.round(latencies.at(-1) ?? 0)} ms), recovered ${Math.round(recoveryMs)} ms after it returned, process ${processAlive ? 'kept running' : 'EXITED'}`,
      {
        outageSeconds: Math.round((restarting - down) / 100) / 10,
        requestsBefore: before.length,
        requestsDuringOutage: during.length,
        answered503: during.filter((s) => s.answer.status === 503).length,
        liveProbe200DuringOutage: during.filter((s) => s.path === '/health/live' && s.answer.status === 200).length,
        readyProbe503DuringOutage: readyDuring.filter((s) => s.answer.status === 503).length,
        maxAnswerMsDuringOutage: Math.round(latencies.at(-1) ?? 0),
        p50AnswerMsDuringOutage: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
        recoveryMsAfterDatabaseReturned: Math.round(recoveryMs),
        requestsAfterRecovery: settled.length,
        failedAfterRecovery: settled.filter((s) => s.answer.status >= 300 || s.answer.status < 200).length,
        processKeptRunning: processAlive,
        secretsInServerLogs: leaks.length,
        problems: problems.slice(0, 20),
      },
    );
    expect(processAlive).toBe(true);
    expect(during.length).toBeGreaterThan(50);
    expect(readyDuring.length).toBeGreaterThan(0);
    expect(settled.length).toBeGreaterThan(20);
    expect(recoveryMs).toBeLessThanOrEqual(MAX_RECOVERY_MS);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(leaks).toEqual([]);
  });
});
