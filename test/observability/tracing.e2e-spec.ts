import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tracingRequested } from '../../src/observability/tracing.js';
import { createTestDatabase, dropTestDatabase } from '../support/test-database.js';

/**
 * OpenTelemetry on the real process: the compiled service, with the SDK's in-memory exporter,
 * serves one guarded create of a medio that carries a W3C traceparent (traced-request.fixture.mjs).
 * The instrumentations patch modules as they load, which Jest's own module loader bypasses: hence
 * a child process on the tsc output, as in production.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface SpanRecord {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
}

describe('tracing', () => {
  let buildDir: string;

  beforeAll(() => {
    buildDir = mkdtempSync(join(tmpdir(), 'medios-tracing-'));
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', buildDir],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (!existsSync(join(buildDir, 'src/app.factory.js'))) throw new Error(`tsc produced no src/app.factory.js:\n${tsc.stdout}${tsc.stderr}`);
    writeFileSync(join(buildDir, 'package.json'), JSON.stringify({ type: 'module' }));
    symlinkSync(join(ROOT, 'node_modules'), join(buildDir, 'node_modules'), 'dir');
  }, 180_000);

  afterAll(() => {
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  it('is off unless the standard OTEL_* variables ask for it', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
  });

  describe('a guarded create of a medio, traced', () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const secretInQuery = `QSecret${randomBytes(6).toString('hex')}`;
    let database: { name: string; url: string };
    let result: { status: number; correlationId: string; medioId: number; spans: SpanRecord[]; secretQuerySpans: SpanRecord[] };
    let logLines: Array<Record<string, any>>;

    beforeAll(async () => {
      database = await createTestDatabase();

      const spansFile = join(buildDir, 'spans.json');
      const child = spawn(process.execPath, [join(ROOT, 'test/observability/traced-request.fixture.mjs')], {
        env: {
          ...process.env,
          BUILD_DIR: buildDir,
          SPANS_FILE: spansFile,
          DATABASE_URL: database.url,
          LOG_LEVEL: 'info',
          TRACEPARENT: `00-${traceId}-${callerSpanId}-01`,
          SECRET_IN_QUERY: secretInQuery,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      if (code !== 0) throw new Error(`the traced service exited with ${code}:\n${stderr}\n${stdout.slice(-4000)}`);
      result = JSON.parse(readFileSync(spansFile, 'utf8'));
      logLines = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>);
    }, 240_000);

    afterAll(async () => {
      if (database) await dropTestDatabase(database.name);
    });

    const span = (predicate: (s: SpanRecord) => boolean, what: string): SpanRecord => {
      const found = result.spans.filter(predicate);
      if (found.length !== 1) throw new Error(`${what}: ${found.length} spans\n${result.spans.map((s) => `${s.name} (${s.scope})`).join('\n')}`);
      return found[0]!;
    };
    const isDescendant = (child: SpanRecord, ancestor: SpanRecord): boolean => {
      const byId = new Map(result.spans.map((s) => [s.spanId, s]));
      for (let s: SpanRecord | undefined = child; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) {
        if (s.parentSpanId === ancestor.spanId) return true;
      }
      return false;
    };
    const statement = (s: SpanRecord) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? '');

    it('creates the medio', () => {
      expect(result.status).toBe(201);
    });

    it('never puts a credential of a query string in a span: url.query redacts it, url.path is the path alone', () => {
      const spans = result.secretQuerySpans;
      expect(spans.some((s) => s.attributes['url.path'] === '/api/v1/auth/me')).toBe(true);
      // an escaped name is read decoded (`%70assword` is `password`); camelCase names of secrets too
      expect(spans.some((s) => s.attributes['url.query'] === 'access_token=REDACTED&password=REDACTED&refreshToken=REDACTED')).toBe(true);
      expect(JSON.stringify(spans)).not.toContain(secretInQuery);
    });

    it("continues the caller's trace: the HTTP server span is the child of the traceparent", () => {
      const http = span((s) => s.scope.includes('instrumentation-http') && s.kind === 1, 'HTTP server span');
      expect(http.traceId).toBe(traceId);
      expect(http.parentSpanId).toBe(callerSpanId);
      expect(result.spans.every((s) => s.traceId === traceId)).toBe(true);
      // named for its route by the fastify instrumentation, through the HTTP span's RPC metadata
      expect(http.attributes['http.route']).toBe('/api/v1/admin/medios');
    });

    it('names the client and the server as the service reads them, not as X-Forwarded-For and Forwarded claim (no trusted proxy)', () => {
      const http = span((s) => s.scope.includes('instrumentation-http') && s.kind === 1, 'HTTP server span');
      expect(http.attributes['client.address']).toBe('127.0.0.1');
      expect(http.attributes['server.address']).toBe('127.0.0.1');
      expect(http.attributes['server.port']).toEqual(expect.any(Number));
      expect(JSON.stringify(http.attributes)).not.toMatch(/6\.6\.6\.6|7\.7\.7\.7|evil\.example/);
    });

    it('puts the guard inside the request, its permission lookup inside the guard, and the two inserts after it', () => {
      const http = span((s) => s.scope.includes('instrumentation-http') && s.kind === 1, 'HTTP server span');
      const guard = span((s) => s.name === 'AccessGuard.canActivate', 'guard span');
      expect(isDescendant(guard, http)).toBe(true);

      const dbSpans = result.spans.filter((s) => s.scope.includes('instrumentation-pg') && statement(s));
      const insertMedio = span((s) => dbSpans.includes(s) && /^INSERT INTO "?medios"?/i.test(statement(s)), 'INSERT INTO medios');
      const insertAudit = span((s) => dbSpans.includes(s) && /^INSERT INTO "?audit_events"?/i.test(statement(s)), 'INSERT INTO audit_events');
      for (const insert of [insertMedio, insertAudit]) {
        expect(isDescendant(insert, http)).toBe(true);
        expect(isDescendant(insert, guard)).toBe(false);
      }
      // every statement of the request is a span of its trace, values never in it
      expect(dbSpans.some((s) => isDescendant(s, guard))).toBe(true);
      for (const s of dbSpans) expect(isDescendant(s, http)).toBe(true);
      expect(JSON.stringify(dbSpans)).not.toContain('Medio trazado');
    });

    it('writes one info line for the request with its route template, status, duration, correlation and actor ids, and the trace id', () => {
      const lines = logLines.filter((l) => l.msg === 'request completed' && l.correlationId === result.correlationId);
      expect(lines).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toMatchObject({ level: 30, method: 'POST', route: '/api/v1/admin/medios', status: 201, actorId: 1, traceId });
      expect(typeof line.durationMs).toBe('number');
      const text = JSON.stringify(line);
      expect(text).not.toMatch(/Bearer|authorization|password|Medio trazado|TRAZADO/i);
    });
  });

  describe("the SDK's own diagnostics", () => {
    /** Starts tracing from the compiled sources with `env`, ends one span, stops; its stdout lines. */
    const traceOneSpan = (env: Record<string, string>): Array<Record<string, any>> => {
      const script = [
        `const { startTracing, stopTracing, tracingApi } = await import(${JSON.stringify(pathToFileURL(join(buildDir, 'src/observability/tracing.js')).href)});`,
        'await startTracing();',
        "tracingApi()?.trace.getTracer('probe').startSpan('probe').end();",
        'await new Promise((resolve) => setTimeout(resolve, 1500));',
        'await stopTracing().catch(() => {});',
      ].join('\n');
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: buildDir,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, LOG_LEVEL: 'info', OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_EXPORTER_OTLP_TIMEOUT: '2000', ...env },
      });
      if (run.status !== 0) throw new Error(`exited with ${run.status}:\n${run.stderr}\n${run.stdout}`);
      return run.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, any>);
    };

    it('warns, in a log line, of an OTEL_TRACES_EXPORTER value the SDK does not know', () => {
      const lines = traceOneSpan({ OTEL_TRACES_EXPORTER: 'bogus' });
      expect(lines).toContainEqual(expect.objectContaining({ level: 40, context: 'OpenTelemetry', msg: expect.stringContaining('bogus') }));
    });

    it('reports spans it could not deliver to an unreachable collector, without the credentials of its URL', async () => {
      const closed = await closedPort();
      const lines = traceOneSpan({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://collector:Sh0uldNotShow@127.0.0.1:${closed}` });
      const errors = lines.filter((l) => l.context === 'OpenTelemetry' && l.level === 50);
      expect(errors).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('ECONNREFUSED') }));
      expect(JSON.stringify(lines)).not.toContain('Sh0uldNotShow');
    });
  });
});

/** A local port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
