import type { DataSource, DataSourceOptions, EntityManager } from 'typeorm';
import type { ConnectionSettings, SqlDialect } from './sql-dialect.js';

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

const monthStart = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-01`;

export class PostgresDialect implements SqlDialect {
  readonly engine = 'postgres' as const;
  readonly supportsTemplates = true;

  dataSourceOptions(s: ConnectionSettings): DataSourceOptions {
    return {
      type: 'postgres',
      url: s.url,
      applicationName: s.applicationName,
      poolSize: s.poolSize,
      connectTimeoutMS: s.connectTimeoutMs,
      extra: {
        max: s.poolSize,
        connectionTimeoutMillis: s.connectTimeoutMs,
        idleTimeoutMillis: 30_000,
        statement_timeout: s.statementTimeoutMs,
        query_timeout: s.statementTimeoutMs + 1000,
        options: '-c TimeZone=UTC',
      },
    };
  }

  isUniqueViolation(err: unknown): boolean {
    return errorCode(err) === '23505';
  }

  isConnectionFailure(err: unknown): boolean {
    const code = errorCode(err);
    if (code && CONNECTION_ERROR_CODES.has(code)) return true;
    const message = err instanceof Error ? err.message : '';
    return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|ECONNREFUSED/i.test(message);
  }

  async ensureMonthlyPartitions(db: EntityManager | DataSource, table: 'audit_events' | 'security_events', firstMonth: Date, lastMonth: Date): Promise<number> {
    const rows: Array<{ created: number }> = await db.query(
      'SELECT ensure_monthly_partitions($1, $2::date, $3::date) AS created',
      [table, monthStart(firstMonth), monthStart(lastMonth)],
    );
    return Number(rows[0]?.created ?? 0);
  }

  async createDatabase(admin: DataSource, name: string, template?: string): Promise<void> {
    const ident = quoteIdent(name);
    const sql = template ? `CREATE DATABASE ${ident} TEMPLATE ${quoteIdent(template)}` : `CREATE DATABASE ${ident}`;
    // Cloning a template fails while another session is connected to it; retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(sql);
        return;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test(String((err as Error).message))) throw err;
        await new Promise((r) => setTimeout(r, 100 + attempt * 50));
      }
    }
  }

  async dropDatabase(admin: DataSource, name: string): Promise<void> {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
