import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/**
 * helmet's default security headers (the same defaults @fastify/helmet applies, but for one CSP directive), computed once at
 * start. They depend on nothing in the request, and @fastify/helmet built the whole helmet
 * middleware — CSP directives parsed again — on every request: a measurable share of a guarded
 * read (BENCHMARKS.md). app.factory.ts sets them on every answer, errors included.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const collector = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  // without upgrade-insecure-requests: served over plain HTTP from any host but localhost, it made
  // browsers fetch Swagger UI's assets over https, which the service does not speak (TLS ends at the
  // ingress in production, where the upgrade is a no-op anyway)
  helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } })(
    {} as IncomingMessage,
    collector as unknown as ServerResponse,
    (err?: unknown) => {
      if (err) throw err instanceof Error ? err : new Error(String(err));
    },
  );
  return Object.freeze(headers);
}
