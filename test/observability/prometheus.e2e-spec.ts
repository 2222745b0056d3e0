import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PartitionManagerService } from '../../src/audit/maintenance/partition-manager.service.js';
import { MetricsServer } from '../../src/observability/metrics.module.js';
import { freePort } from '../support/free-port.js';
import { makeInsertsFail } from '../support/test-database.js';
import { ADMIN_USERNAME } from '../support/test-env.js';
import { TestApp } from '../support/test-app.js';

/**
 * A real Prometheus (Debian's `prometheus` package) scrapes the metrics listener of a running
 * service; the test then reads the series back through Prometheus' HTTP query API — what an
 * operator's dashboards and alerts will see. `promtool` (same package) checks the exposition
 * format and the alert rules committed in deploy/prometheus/.
 *
 * Needs /usr/bin/prometheus and /usr/bin/promtool (`apt-get install -y prometheus`); without them
 * the test fails, unless PROMETHEUS_TESTS=skip says to skip it on purpose (CI sets it only where
 * the package cannot be installed).
 */
const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const missing = !existsSync(PROMETHEUS) || !existsSync(PROMTOOL);

if (missing && process.env.PROMETHEUS_TESTS === 'skip') {
  describe('Prometheus scraping the service', () => {
    it('is skipped on purpose: PROMETHEUS_TESTS=skip and no prometheus/promtool in /usr/bin', () => {
      process.stdout.write(
        `[prometheus tests] skipped: PROMETHEUS_TESTS=skip and ${PROMETHEUS} or ${PROMTOOL} does not exist (apt-get install -y prometheus)\n`,
      );
      expect(missing).toBe(true);
    });
  });
} else {
  describe('Prometheus scraping the service', () => {
    let t: TestApp;
    let metricsPort: number;
    let prometheus: ChildProcess | undefined;
    let prometheusUrl: string;
    let workDir: string;
    let prometheusLog = '';
    let restricted: { id: number; username: string };
    let jobFinishedAt: number;

    /** One instant query; the result vector. */
    async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
      const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      if (body.status !== 'success') throw new Error(`query ${promql} failed: ${JSON.stringify(body)}`);
      return body.data.result;
    }

    /** The value of a query, once Prometheus has scraped it (it scrapes every second). */
    async function valueOf(promql: string): Promise<number> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const result = await query(promql);
        if (result.length === 1) return Number(result[0]!.value[1]);
        if (result.length > 1) throw new Error(`${promql}: ${result.length} series, expected one`);
        if (Date.now() > deadline) throw new Error(`${promql}: no series after 30 s\n${prometheusLog.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    /** Waits for a scrape that started after now, so every request made before is in it. */
    async function freshScrape(): Promise<void> {
      const since = Date.now() / 1000;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [up] = await query('timestamp(up{job="medios-admin-api"})');
        if (up && Number(up.value[1]) > since + 0.1) return;
        if (Date.now() > deadline) throw new Error(`no scrape after ${since}\n${prometheusLog.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    beforeAll(async () => {
      if (missing) {
        throw new Error(
          `${PROMETHEUS} / ${PROMTOOL} not found: install Debian's prometheus (apt-get install -y prometheus), or set PROMETHEUS_TESTS=skip to skip this test on purpose`,
        );
      }
      metricsPort = await freePort();
      t = await TestApp.create({ env: { METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });
      expect(t.app.get(MetricsServer).port).toBe(metricsPort);

      // the traffic: logins (one good, one wrong password), reads, a 403, a create, a failed audit write, a job
      const token = await t.adminToken();
      expect((await t.post('/api/v1/auth/login', { username: ADMIN_USERNAME, password: 'not-the-password' })).status).toBe(401);
      const created = await t.post('/api/v1/admin/medios', { codigo: 'PROM1', nombre: 'Medio observado' }, { token });
      expect(created.status).toBe(201);
      expect((await t.get(`/api/v1/admin/medios/${created.body.id}`, { token })).status).toBe(200);
      expect((await t.get('/api/v1/admin/medios', { token })).status).toBe(200);
      const cajero = await t.createUser('cajero');
      restricted = { id: cajero.id, username: cajero.username };
      expect((await t.post('/api/v1/admin/medios', { codigo: 'PROM2', nombre: 'Sin permiso' }, { token: cajero.token })).status).toBe(403);
      const restore = await makeInsertsFail(t.db, t.engine, 'audit_events', 'audit store unavailable');
      try {
        expect((await t.post('/api/v1/admin/medios', { codigo: 'PROM3', nombre: 'Sin auditoría' }, { token })).status).toBe(500);
      } finally {
        await restore();
      }
      const job = await t.app.get(PartitionManagerService).run();
      expect(job.status).toBe('ok');
      jobFinishedAt = Date.parse(job.finishedAt);

      workDir = mkdtempSync(join(tmpdir(), 'medios-prometheus-'));
      const promPort = await freePort();
      prometheusUrl = `http://127.0.0.1:${promPort}`;
      writeFileSync(
        join(workDir, 'prometheus.yml'),
        [
          'global:',
          '  scrape_interval: 1s',
          '  scrape_timeout: 1s',
          'scrape_configs:',
          '  - job_name: medios-admin-api',
          '    static_configs:',
          `      - targets: ['127.0.0.1:${metricsPort}']`,
          '',
        ].join('\n'),
      );
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${join(workDir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(workDir, 'data')}`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      prometheus.stdout?.on('data', (d: Buffer) => (prometheusLog += d.toString()));
      prometheus.stderr?.on('data', (d: Buffer) => (prometheusLog += d.toString()));
      const deadline = Date.now() + 30_000;
      for (;;) {
        const ready = await fetch(`${prometheusUrl}/-/ready`).then(
          (r) => r.ok,
          () => false,
        );
        if (ready) break;
        if (Date.now() > deadline || prometheus.exitCode !== null) throw new Error(`prometheus did not start:\n${prometheusLog}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      await freshScrape();
    });

    afterAll(async () => {
      if (prometheus && prometheus.exitCode === null) {
        const exited = new Promise((r) => prometheus!.once('exit', r));
        prometheus.kill('SIGTERM');
        await exited;
      }
      if (workDir) rmSync(workDir, { recursive: true, force: true });
      await t?.close();
    });

    it('scrapes the metrics listener, up and healthy', async () => {
      expect(await valueOf('up{job="medios-admin-api"}')).toBe(1);
    });

    it('never serves /metrics on the API port', async () => {
      expect((await t.get('/metrics')).status).toBe(404);
    });

    it('measures request durations by method, route template and status', async () => {
      const byId =
        'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/api/v1/admin/medios/:id",http_response_status_code="200"}';
      expect(await valueOf(byId)).toBe(1);
      expect(
        await valueOf(
          'http_server_request_duration_seconds_count{http_request_method="POST",http_route="/api/v1/admin/medios",http_response_status_code="201"}',
        ),
      ).toBe(1);
      expect(await valueOf('sum(http_server_request_duration_seconds_count{http_response_status_code="500"})')).toBe(1);
      expect(await valueOf('sum(http_server_request_duration_seconds_count{http_response_status_code="403"})')).toBe(1);
      // a p99 can be computed from the buckets (the latency alert does it)
      expect(await valueOf('histogram_quantile(0.99, sum by (le) (http_server_request_duration_seconds_bucket))')).toBeGreaterThan(0);
    });

    it('counts logins by result and reason, denials, and audit writes that failed', async () => {
      expect(await valueOf('login_attempts_total{result="success",reason="none"}')).toBeGreaterThanOrEqual(2);
      expect(await valueOf('login_attempts_total{result="failure",reason="invalid_password"}')).toBe(1);
      expect(await valueOf('login_throttled_total')).toBe(0);
      expect(await valueOf('permission_denied_total')).toBe(1);
      expect(await valueOf('audit_write_failures_total{store="audit_events"}')).toBe(1);
    });

    it('reports the maintenance job run, its last success and the partitions ahead of both stores', async () => {
      // the service's `job` label is stored as `exported_job` (Prometheus keeps `job` for the scrape job)
      // the first start's run (before the bootstrap admin's event) and the test's
      expect(await valueOf('maintenance_job_runs_total{job="medios-admin-api",exported_job="partition-manager",result="ok"}')).toBe(2);
      const lastSuccess = await valueOf('maintenance_job_last_success_timestamp_seconds{exported_job="partition-manager"}');
      expect(lastSuccess * 1000).toBeGreaterThanOrEqual(jobFinishedAt - 1000);
      expect(lastSuccess * 1000).toBeLessThanOrEqual(Date.now());
      expect(await valueOf('audit_partitions_ahead_months{store="audit_events"}')).toBeGreaterThanOrEqual(3);
      expect(await valueOf('audit_partitions_ahead_months{store="security_events"}')).toBeGreaterThanOrEqual(3);
    });

    it('reports the pool, the password-hash queue and the Node.js runtime', async () => {
      expect(await valueOf('db_pool_connections_idle')).toBeGreaterThanOrEqual(1);
      expect(await valueOf('db_pool_connections_in_use')).toBeGreaterThanOrEqual(0);
      expect(await valueOf('db_pool_waiting_requests')).toBe(0);
      expect(await valueOf('password_hash_queue_depth')).toBe(0);
      expect(await valueOf('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
      expect(await valueOf('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(await valueOf('nodejs_heap_space_size_used_bytes{space="old"}')).toBeGreaterThan(0);
    });

    it('puts no user id, username, path id or token in any label', async () => {
      const res = await fetch(`${prometheusUrl}/api/v1/series?match[]=${encodeURIComponent('{job="medios-admin-api"}')}`);
      const series = ((await res.json()) as { data: Array<Record<string, string>> }).data;
      expect(series.length).toBeGreaterThan(20);
      expect(series.some((s) => s.http_route === '/api/v1/admin/medios/:id')).toBe(true);
      const values = series.flatMap((s) =>
        Object.entries(s)
          .filter(([k]) => k !== 'instance' && k !== '__name__')
          .map(([, v]) => v),
      );
      for (const value of values) {
        expect(value).not.toContain(restricted.username);
        expect(value).not.toBe(ADMIN_USERNAME);
        expect(value).not.toMatch(/\/\d+(\/|$)/); // a route is its template (/medios/:id), never a path with an id
        expect(value).not.toMatch(/^ey|Bearer/);
      }
    });

    it('backs every panel of the Grafana dashboard with a valid query over metrics the service exposes', async () => {
      const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/medios-admin-api.json'), 'utf8')) as {
        panels: Array<{ targets?: Array<{ expr: string }> }>;
      };
      const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
      expect(exprs.length).toBeGreaterThan(15);
      const exposition = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      for (const expr of exprs) {
        await query(expr.replaceAll('$__rate_interval', '1m')); // throws unless Prometheus accepts it
        for (const [, name] of expr.matchAll(/([a-z][a-z0-9_]*)\{/g))
          expect(exposition).toContain(`# TYPE ${name!.replace(/_(bucket|count|sum)$/, '')} `);
      }
    });

    it("exposes metrics that promtool parses, with no lint finding on the service's own metrics", async () => {
      const exposition = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
      // 0: clean, 3: lint findings only (1 would be a parse error). prom-client's own defaults name
      // three gauges nodejs_active_*_total, which promtool's naming lint flags; nothing else may be.
      const findings = (check.stdout + check.stderr).split('\n').filter(Boolean);
      expect([0, 3]).toContain(check.status);
      expect(
        findings.filter(
          (line) => !/^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/.test(line),
        ),
      ).toEqual([]);
    });

    it('ships alert rules that promtool accepts and that fire in their unit tests', () => {
      const check = spawnSync(PROMTOOL, ['check', 'rules', join(ROOT, 'deploy/prometheus/alert-rules.yml')], { encoding: 'utf8' });
      expect({ status: check.status, output: check.stderr }).toEqual({ status: 0, output: '' });
      const unit = spawnSync(PROMTOOL, ['test', 'rules', 'alert-rules.test.yml', 'alert-rules.jobs.test.yml'], {
        cwd: join(ROOT, 'deploy/prometheus'),
        encoding: 'utf8',
      });
      expect({ status: unit.status, output: unit.stdout + unit.stderr }).toMatchObject({ status: 0, output: expect.stringContaining('SUCCESS') });
    });
  });
}
