export type Engine = 'postgres' | 'mssql';

export function engineOf(url: string): Engine {
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mssql' || scheme === 'sqlserver') return 'mssql';
  throw new Error(`DATABASE_URL must start with postgres://, mssql:// or sqlserver:// (got ${scheme}://)`);
}

export interface ParsedDatabaseUrl {
  engine: Engine;
  host: string;
  port: number | undefined;
  username: string;
  password: string;
  database: string;
  params: URLSearchParams;
}

/** The URL parsed as WHATWG parses an http URL (its parts stay percent-encoded), whatever its scheme. */
export function genericUrl(url: string): URL {
  return new URL(url.replace(/^[a-z]+:/i, 'http:'));
}

export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const engine = engineOf(url);
  const u = genericUrl(url);
  return {
    engine,
    host: decodeURIComponent(u.hostname.replace(/^\[|\]$/g, '')),
    port: u.port ? Number(u.port) : undefined,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')),
    params: u.searchParams,
  };
}

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const scheme = url.slice(0, url.indexOf(':'));
  const u = genericUrl(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return `${scheme}:${u.toString().slice('http:'.length)}`;
}

export { redactUrl } from '../common/config/redact-url.js';
