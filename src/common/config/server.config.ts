import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { bool, int, list, readSettings, type ReadContext, text, type ValuesOf } from './settings.js';

/** The HTTP listener, what sits in front of it, and the process around it. */
export const SERVER_SETTINGS = {
  port: int('PORT', { min: 0, max: 65535, default: 3000 }),
  host: text('HOST', { default: '0.0.0.0' }).map(checkHost),
  corsOrigins: list(
    'CORS_ORIGINS',
    /^[^\s,]*(\s*,\s*[^\s,]+)*\s*$/,
    'CORS_ORIGINS must be a comma-separated list of origins, e.g. https://admin.example.com',
  ).map(checkOrigins),
  /** true, false, or the proxies' addresses/CIDRs, passed to fastify's trustProxy */
  trustProxy: text('TRUST_PROXY', { default: 'false' }).map(parseTrustProxy),
  dataDir: text('DATA_DIR', { default: './.data' }).map((dir) => resolve(dir)),
  // tests run many applications in one process and drive jobs themselves: never scheduled there
  jobsEnabled: bool('JOBS_ENABLED', { default: true }).map((enabled, ctx) => ctx.nodeEnv !== 'test' && enabled),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', { min: 0, max: 120000, unit: 'milliseconds', default: 10000 }),
  /** how long a client may take to send a whole request, headers and body; then 408 and the connection closed */
  requestTimeoutMs: int('REQUEST_TIMEOUT_MS', { min: 1000, max: 300000, unit: 'milliseconds', default: 30000 }),
};

export type ServerConfig = ValuesOf<typeof SERVER_SETTINGS>;

export function serverConfig(ctx: ReadContext): ServerConfig {
  return readSettings(SERVER_SETTINGS, ctx);
}

/**
 * Each entry must be an origin exactly as a browser sends it in `Origin` (scheme, lowercase host,
 * port only when not the scheme's default; no path, not even a trailing slash), because it is
 * compared as text: `https://admin.example.com/` passed the check and then never matched.
 */
function checkOrigins(origins: string[], ctx: ReadContext): string[] {
  const bad = origins.filter((entry) => {
    try {
      const url = new URL(entry);
      return !['http:', 'https:'].includes(url.protocol) || url.origin !== entry;
    } catch {
      return true;
    }
  });
  if (bad.length)
    ctx.problems.push(
      `CORS_ORIGINS must list origins as browsers send them (http or https, lowercase host, no path or trailing slash, e.g. https://admin.example.com); not ${bad.map((b) => `"${b}"`).join(', ')}`,
    );
  return origins;
}

/**
 * An address to listen on: an IP address or a host name. Anything else would pass here and fail
 * later, once the application was built, as an unresolvable name (exit 1 instead of the
 * configuration's 78).
 */
function checkHost(host: string, ctx: ReadContext): string {
  // labels of letters, digits and inner hyphens; underscores too, as container networks name hosts
  const name = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;
  if (isIP(host) === 0 && !name.test(host))
    ctx.problems.push(`HOST must be an IP address or a host name to listen on, e.g. 0.0.0.0, :: or localhost (got "${host}")`);
  return host;
}

function parseTrustProxy(value: string, ctx: ReadContext): boolean | string {
  const word = value.trim().toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  const bad = value.split(',').filter((entry) => !isProxyAddress(entry.trim()));
  if (bad.length) {
    ctx.problems.push(
      `TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal); not ${bad.map((b) => `"${b.trim()}"`).join(', ')}`,
    );
    return false;
  }
  return value;
}

/** An entry fastify's trustProxy (proxy-addr) accepts: an IP, an IP/prefix within its family's length, or a named range. */
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return family === 4 && isIP(prefix) === 4; // a dotted netmask
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
