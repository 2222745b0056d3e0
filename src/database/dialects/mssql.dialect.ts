import type { DataSource, DataSourceOptions, EntityManager } from 'typeorm';
import { parseDatabaseUrl } from '../database-url.js';
import type { ConnectionSettings, SqlDialect } from './sql-dialect.js';

function errorNumber(err: unknown): number | undefined {
  const e = err as { number?: unknown; driverError?: { number?: unknown; originalError?: { info?: { number?: unknown } } } } | null;
  const n = e?.driverError?.number ?? e?.number ?? e?.driverError?.originalError?.info?.number;
  return typeof n === 'number' ? n : undefined;
}

const monthStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

export class MssqlDialect implements SqlDialect {
  readonly engine = 'mssql' as const;
  readonly supportsTemplates = false;

  dataSourceOptions(s: ConnectionSettings): DataSourceOptions {
    const u = parseDatabaseUrl(s.url);
    const flag = (name: string, dflt: boolean) => {
      const v = u.params.get(name);
      return v === null ? dflt : v === 'true' || v === '1';
    };
    return {
      type: 'mssql',
      host: u.host,
      port: u.port ?? 1433,
      username: u.username,
      password: u.password,
      database: u.database || 'master',
      connectionTimeout: s.connectTimeoutMs,
      requestTimeout: s.statementTimeoutMs,
      pool: { max: s.poolSize, min: 0, idleTimeoutMillis: 30_000, acquireTimeoutMillis: s.connectTimeoutMs },
      options: {
        // every date is UTC in and out; date parameters are typed datetime2 (never datetime)
        useUTC: true,
        encrypt: flag('encrypt', true),
        trustServerCertificate: flag('trustServerCertificate', true),
        appName: s.applicationName,
      },
    } as unknown as DataSourceOptions;
  }

  isUniqueViolation(err: unknown): boolean {
    const n = errorNumber(err);
    return n === 2601 || n === 2627;
  }

  isConnectionFailure(err: unknown): boolean {
    const code = (err as { code?: unknown; driverError?: { code?: unknown } } | null)?.driverError?.code ?? (err as { code?: unknown } | null)?.code;
    return code === 'ESOCKET' || code === 'ETIMEOUT' || code === 'ECONNCLOSED' || code === 'ELOGIN' || code === 'EINSTLOOKUP' || code === 'ECONNREFUSED';
  }

  async ensureMonthlyPartitions(db: EntityManager | DataSource, table: 'audit_events' | 'security_events', firstMonth: Date, lastMonth: Date): Promise<number> {
    // Both stores share one partition function (pf_events_monthly, RANGE RIGHT on datetime2);
    // the procedure SPLITs the missing monthly boundaries with NEXT USED on the scheme.
    const rows: Array<{ created: number }> = await db.query(
      'EXEC dbo.ensure_monthly_partitions @0, @1, @2',
      [table, monthStart(firstMonth), monthStart(lastMonth)],
    );
    return Number(rows?.[0]?.created ?? 0);
  }

  async createDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.query(`ALTER DATABASE ${quoteIdent(name)} SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE`);
  }

  async dropDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(
      `IF DB_ID(@0) IS NOT NULL BEGIN ALTER DATABASE ${quoteIdent(name)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE ${quoteIdent(name)}; END`,
      [name],
    );
  }
}

function quoteIdent(name: string): string {
  return `[${name.replace(/]/g, ']]')}]`;
}
