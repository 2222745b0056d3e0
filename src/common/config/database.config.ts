import { engineOf, genericUrl, parseDatabaseUrl } from '../../database/database-url.js';
import { redactUrl } from './redact-url.js';
import { bool, int, matching, readSettings, type ReadContext } from './settings.js';

const DATABASE_URL_PATTERN = /^(postgres|postgresql|mssql|sqlserver):\/\/.+/;

/** The database: the primary, its pools and timeouts, the role the service works as, the read replica. */
export const DATABASE_SETTINGS = {
  /** unset: the embedded PostgreSQL under DATA_DIR (development only) */
  databaseUrl: matching(
    'DATABASE_URL',
    DATABASE_URL_PATTERN,
    'DATABASE_URL must be a postgres://user:pass@host:port/db or mssql://user:pass@host:port/db URL (sqlserver:// too)',
  ),
  migrationsRun: bool('MIGRATIONS_RUN', { default: true }),
  db: {
    poolSize: int('DB_POOL_SIZE', { min: 1, max: 200, default: 10 }),
    statementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', { min: 100, max: 600000, unit: 'milliseconds', default: 15000 }),
    /**
     * Timeout of the partition maintenance statement (SQL Server: dbo.ensure_monthly_partitions,
     * whose SPLIT moves the rows that landed in the open last partition and may wait up to 60 s
     * for the maintenance lock): far above statementTimeoutMs, which would cancel it every run.
     */
    maintenanceTimeoutMs: int('DB_MAINTENANCE_TIMEOUT_MS', { min: 120000, max: 86400000, unit: 'milliseconds', default: 1_800_000 }),
    /**
     * PostgreSQL role the service's pool switches to on every connection (`-c role=…`): the
     * restricted `medios_app` (append-only audit store, migrations/postgres/1763712600000-append-only.ts).
     * Empty: no switch (the login is already restricted, or tests that need the owner). Migrations
     * and the CLI's admin connections never switch.
     */
    // tests connect as the owner by default (their fixtures write raw SQL); the reliability suite sets it
    appRole: matching(
      'DATABASE_APP_ROLE',
      /^([a-z_][a-z0-9_]{0,62})?$/,
      'DATABASE_APP_ROLE must be a plain lower-case role name (e.g. medios_app), or empty to connect without switching role',
      { default: 'medios_app', test: '' },
    ),
  },
  readReplica: {
    url: matching(
      'DATABASE_READ_URL',
      DATABASE_URL_PATTERN,
      'DATABASE_READ_URL must be a postgres://… or mssql://… URL of a read replica of DATABASE_URL (same engine), or empty',
    ),
    /** beyond this lag (or when it cannot be measured) those reads go to the primary */
    maxLagSeconds: int('DATABASE_READ_MAX_LAG_SECONDS', { min: 0, max: 86400, unit: 'seconds', default: 30 }),
    /** unset: DB_POOL_SIZE */
    poolSize: int('DB_READ_POOL_SIZE', { min: 1, max: 200 }),
  },
};

export function databaseConfig(ctx: ReadContext) {
  const { readReplica, ...primary } = readSettings(DATABASE_SETTINGS, ctx);
  // a URL that is not of an engine has its problem already; reading it further would throw
  const ofAnEngine = (url: string | undefined): url is string => url !== undefined && DATABASE_URL_PATTERN.test(url);
  for (const [variable, url] of [
    ['DATABASE_URL', primary.databaseUrl],
    ['DATABASE_READ_URL', readReplica.url],
  ] as const) {
    const problem = ofAnEngine(url) ? urlProblem(url) : undefined;
    if (problem) ctx.problems.push(`${variable} ${problem} (got "${redactUrl(url!)}")`);
  }
  if (ctx.nodeEnv === 'production' && !primary.databaseUrl)
    ctx.problems.push('DATABASE_URL is required when NODE_ENV=production (postgres://… or mssql://…); the embedded database is for development only');
  if (ofAnEngine(readReplica.url)) {
    if (!primary.databaseUrl)
      ctx.problems.push('DATABASE_READ_URL needs DATABASE_URL: a read replica replicates the primary of DATABASE_URL, never the embedded database');
    else if (ofAnEngine(primary.databaseUrl) && engineOf(readReplica.url) !== engineOf(primary.databaseUrl))
      ctx.problems.push('DATABASE_READ_URL must use the engine of DATABASE_URL (a replica of the same database)');
  }
  return {
    ...primary,
    /**
     * The read replica (DATABASE_READ_URL) that serves the audit query and the large paged lists,
     * or undefined: everything reads the primary. docs/operations.md "Scaling out".
     */
    readReplica: readReplica.url ? { ...readReplica, url: readReplica.url, poolSize: readReplica.poolSize ?? primary.db.poolSize } : undefined,
  };
}

export type DatabaseConfig = ReturnType<typeof databaseConfig>;

/**
 * What makes a connection URL of the right scheme unusable, or undefined: what the service's own
 * parser (parseDatabaseUrl) refuses — a port that is not a number from 1 to 65535, a bad host, or
 * a `%` in the user or password that is not an escape (`%` is written `%25`) — and a SQL Server
 * URL that names no database.
 */
function urlProblem(url: string): string | undefined {
  try {
    const parsed = parseDatabaseUrl(url);
    // without one, the driver would use the login's default database (master, usually) and the
    // migrations would build the schema there (PostgreSQL's default, the user's own name, is asked for explicitly)
    if (parsed.engine === 'mssql' && !parsed.database)
      return "names no database: write mssql://user:password@host:1433/<database> (the service never falls back to the login's default database, usually master)";
    // A password holding a raw `/` ends the authority early: the URL still parses, but its host is
    // a piece of the password (the driver would look it up and log it) and the rest, up to the
    // real host and the database, lands in the path. A database name is one path segment (a `/`
    // in it is written %2F), so a second raw segment means such a password.
    const path = genericUrl(url).pathname;
    if (/^\/[^/]*\//.test(path)) return 'has a path of more than one segment: percent-encode / and @ in the user and password (/ as %2F, @ as %40)';
    return undefined;
  } catch (err) {
    return err instanceof URIError
      ? 'has a user or password with a % that is not an escape: write % as %25'
      : 'is not a valid URL: check the host and the port (1..65535), and percent-encode reserved characters of the user and password';
  }
}
