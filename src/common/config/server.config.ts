import { resolve } from 'node:path';
import { bool, int, list, readSettings, type ReadContext, text, type ValuesOf } from './settings.js';

/** The HTTP listener, what sits in front of it, and the process around it. */
export const SERVER_SETTINGS = {
  port: int('PORT', { min: 0, max: 65535, default: 3000 }),
  host: text('HOST', { default: '0.0.0.0' }),
  corsOrigins: list(
    'CORS_ORIGINS',
    /^[^\s,]*(\s*,\s*[^\s,]+)*\s*$/,
    'CORS_ORIGINS must be a comma-separated list of origins, e.g. https://admin.example.com',
  ),
  /** true, false, or the proxies' addresses/CIDRs, passed to fastify's trustProxy */
  trustProxy: text('TRUST_PROXY', { default: 'false' }).map(parseTrustProxy),
  dataDir: text('DATA_DIR', { default: './.data' }).map((dir) => resolve(dir)),
  // tests run many applications in one process and drive jobs themselves: never scheduled there
  jobsEnabled: bool('JOBS_ENABLED', { default: true }).map((enabled, ctx) => ctx.nodeEnv !== 'test' && enabled),
  shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', { min: 0, max: 120000, unit: 'milliseconds', default: 10000 }),
};

export type ServerConfig = ValuesOf<typeof SERVER_SETTINGS>;

export function serverConfig(ctx: ReadContext): ServerConfig {
  return readSettings(SERVER_SETTINGS, ctx);
}

function parseTrustProxy(value: string): boolean | string {
  const word = value.trim().toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  return value;
}
