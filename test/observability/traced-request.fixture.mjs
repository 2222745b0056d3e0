/**
 * Runs in a child process of tracing.e2e-spec.ts, on the compiled sources (BUILD_DIR): starts
 * tracing with the SDK's in-memory exporter BEFORE loading the application — as main.ts does —
 * then serves on a free port, signs in, makes one guarded create carrying a W3C traceparent, and
 * writes the finished spans to SPANS_FILE; then the spans of one read whose query string carries
 * SECRET_IN_QUERY. The log lines go to stdout, where the test reads them.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const build = (path) => pathToFileURL(join(process.env.BUILD_DIR, path)).href;
const exporter = new InMemorySpanExporter();
const { startTracing, stopTracing } = await import(build('src/observability/tracing.js'));
await startTracing({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

const { loadAppConfig } = await import(build('src/common/config/index.js'));
const { createApp } = await import(build('src/app.factory.js'));
const { engineOf } = await import(build('src/database/database-url.js'));
const { dialectFor } = await import(build('src/database/dialects/index.js'));

const config = loadAppConfig(process.env);
const engine = engineOf(config.databaseUrl);
const app = await createApp({
  config,
  database: { url: config.databaseUrl, engine, dialect: dialectFor(engine), embedded: false, stop: async () => {} },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
const json = { 'content-type': 'application/json' };

const login = await globalThis.fetch(`${base}/api/v1/auth/login`, {
  method: 'POST',
  headers: json,
  body: JSON.stringify({ username: 'admin', password: process.env.ADMIN_PASSWORD }),
});
const { accessToken } = await login.json();
exporter.reset(); // only the create's spans from here on

const create = await globalThis.fetch(`${base}/api/v1/admin/medios`, {
  method: 'POST',
  headers: {
    ...json,
    authorization: `Bearer ${accessToken}`,
    traceparent: process.env.TRACEPARENT,
    // what any client can write: the service (TRUST_PROXY unset) believes neither
    'x-forwarded-for': '6.6.6.6',
    forwarded: 'for=7.7.7.7;host=evil.example;proto=https',
  },
  body: JSON.stringify({ codigo: 'TRAZADO', nombre: 'Medio trazado' }),
});
const status = create.status;
const correlationId = create.headers.get('x-correlation-id');
const medioId = (await create.json()).id;

// read before stopping: shutting the exporter down empties it
const finished = () =>
  exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? null,
    kind: s.kind,
    scope: s.instrumentationScope.name,
    attributes: s.attributes,
  }));
const spans = finished();

// a credential a client put in a query string never reaches a span
exporter.reset();
await globalThis.fetch(
  `${base}/api/v1/auth/me?access_token=${process.env.SECRET_IN_QUERY}&password=${process.env.SECRET_IN_QUERY}&refreshToken=${process.env.SECRET_IN_QUERY}&%70assword=${process.env.SECRET_IN_QUERY}`,
  {
    headers: { authorization: `Bearer ${accessToken}` },
  },
);
await app.close();
const secretQuerySpans = finished();
await stopTracing();
writeFileSync(process.env.SPANS_FILE, JSON.stringify({ status, correlationId, medioId, spans, secretQuerySpans }));
