import type * as OtelApi from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

/**
 * OpenTelemetry tracing, off unless the standard variables ask for it: `OTEL_EXPORTER_OTLP_ENDPOINT`
 * (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), or `OTEL_TRACES_EXPORTER` other than `none`;
 * `OTEL_SDK_DISABLED=true` wins. When off, neither the SDK nor the API is loaded and nothing is
 * patched: the request path pays nothing. When on, it must start before the instrumented modules
 * (http, fastify, pg, tedious) are loaded — main.ts awaits it before importing the server.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

export interface TracingOptions {
  /** replaces the exporters chosen by OTEL_TRACES_EXPORTER (tests: an in-memory exporter) */
  spanProcessors?: SpanProcessor[];
}

interface Started {
  api: typeof OtelApi;
  shutdown(): Promise<void>;
}

let started: Started | undefined;

/** Starts the SDK when the environment asks for it (or when `options.spanProcessors` are given); idempotent. */
export async function startTracing(options: TracingOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (started) return true;
  if (!options.spanProcessors && !tracingRequested(env)) return false;
  const { startSdk } = await import('./tracing-sdk.js');
  started = await startSdk(options, env);
  return true;
}

/** Flushes the spans still buffered and stops the SDK (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  const current = started;
  started = undefined;
  await current?.shutdown();
}

/** The OpenTelemetry API when tracing is on, else undefined. */
export function tracingApi(): typeof OtelApi | undefined {
  return started?.api;
}

/**
 * pino mixin: the active span's trace and span ids on every log line written while a request's
 * span is active. Installed only when tracing is on.
 */
export function traceLogFields(): Record<string, string> {
  const span = started?.api.trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { traceId, spanId, traceFlags: `0${traceFlags.toString(16)}`.slice(-2) };
}
