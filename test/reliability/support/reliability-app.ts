import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../../src/common/config/index.js';
import { connectionSettings } from '../../../src/database/database-runtime.js';
import { dialectFor } from '../../../src/database/dialects/index.js';
import { makeInsertsFail, placeholders } from '../../support/test-database.js';
import { type HttpResult, TestApp } from '../../support/test-app.js';

/** The restricted role the service runs as in production (DATABASE_APP_ROLE's default). */
export const APP_ROLE = 'medios_app';

/**
 * A TestApp whose pool runs as the restricted role `medios_app` — as in production — plus an
 * owner connection to the same database for what the service itself may not do: installing the
 * failing audit trigger, checksumming every table, fixtures the API does not offer (avisos).
 */
export class ReliabilityApp {
  private constructor(
    readonly t: TestApp,
    readonly owner: DataSource,
  ) {}

  static async create(env: Record<string, string> = {}): Promise<ReliabilityApp> {
    const t = await TestApp.create({ env: { DATABASE_APP_ROLE: APP_ROLE, ...env } });
    const url = t.config.databaseUrl as string;
    const owner = new DataSource(
      dialectFor(t.engine).dataSourceOptions(connectionSettings(loadAppConfig(process.env), url, 'medios-reliability-owner')),
    );
    await owner.initialize();
    return new ReliabilityApp(t, owner);
  }

  async close(): Promise<void> {
    await this.owner.destroy();
    await this.t.close();
  }

  /** Raw SQL as the schema owner, `$n` placeholders. */
  ownerQuery<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.owner.query(placeholders(this.t.engine, text), params);
  }

  /** Every audit insert fails at the database until the returned function runs. */
  breakAuditStore(): Promise<() => Promise<void>> {
    return makeInsertsFail(this.owner, this.t.engine, 'audit_events', 'reliability: audit store unavailable');
  }

  /** Opens `n` pooled connections of the app at once, so concurrent requests really overlap in the database. */
  async warmPool(n = this.t.config.db.poolSize): Promise<void> {
    await Promise.all(Array.from({ length: n }, () => this.t.db.query('SELECT pg_sleep(0.05)')));
  }
}

/** A short unique upper-case suffix for codes and names. */
export const uid = () => randomBytes(3).toString('hex').toUpperCase();

/** Row count and an order-independent checksum of every table of the database (PostgreSQL). */
export async function tableChecksums(owner: DataSource): Promise<Map<string, string>> {
  const tables: Array<{ name: string }> = await owner.query(
    `SELECT quote_ident(c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname`,
  );
  const sums = new Map<string, string>();
  const parts = tables.map(
    ({ name }) =>
      `SELECT '${name.replace(/'/g, "''")}' AS name, count(*)::text || ':' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS sum FROM ${name} t`,
  );
  // one statement: a consistent snapshot of all tables at once
  const rows: Array<{ name: string; sum: string }> = await owner.query(parts.join('\nUNION ALL\n'));
  for (const r of rows) sums.set(r.name.replace(/^"|"$/g, ''), r.sum);
  return sums;
}

/** The tables whose checksum differs between two snapshots. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}

export const FISCAL_PREFIX = '/api/v1/admin/fiscal';

/** Problems with an error answer's shape, per the contract of its route (empty when it is right). */
export function errorShapeProblems(path: string, res: HttpResult): string[] {
  const problems: string[] = [];
  const contentType = String(res.headers['content-type'] ?? '');
  const body = res.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [`the body is not a JSON object: ${res.text.slice(0, 200)}`];
  if (path.startsWith(FISCAL_PREFIX)) {
    if (!contentType.startsWith('application/json')) problems.push(`content-type ${contentType}`);
    const keys = Object.keys(body).sort().join(',');
    if (keys !== 'error,message') problems.push(`fiscal body keys ${keys}`);
    if (typeof body.error !== 'string' || !/^[a-z_]+$/.test(body.error)) problems.push('error is not a snake_case code');
    if (typeof body.message !== 'string' || !body.message) problems.push('message is empty');
    return problems;
  }
  if (path.startsWith('/health/') && res.status === 503) {
    // probes keep the @nestjs/terminus body
    if (body.status !== 'error') problems.push('a 503 probe body without status error');
    return problems;
  }
  if (!contentType.startsWith('application/problem+json')) problems.push(`content-type ${contentType}`);
  const allowed = new Set(['type', 'title', 'status', 'detail', 'instance', 'code', 'correlationId', 'errors']);
  for (const k of Object.keys(body)) if (!allowed.has(k)) problems.push(`unexpected property ${k}`);
  if (body.type !== 'about:blank') problems.push('type');
  if (typeof body.title !== 'string') problems.push('title');
  if (body.status !== res.status) problems.push(`status ${String(body.status)} != ${res.status}`);
  if (typeof body.detail !== 'string') problems.push('detail');
  if (typeof body.instance !== 'string') problems.push('instance');
  if (typeof body.code !== 'string' || !/^[a-z_]+$/.test(body.code)) problems.push('code');
  if (body.correlationId !== res.headers['x-correlation-id']) problems.push('correlationId differs from X-Correlation-Id');
  if (body.errors !== undefined) {
    const ok =
      Array.isArray(body.errors) &&
      body.errors.every(
        (e) => e && typeof e === 'object' && typeof e.field === 'string' && typeof e.code === 'string' && typeof e.message === 'string',
      );
    if (!ok) problems.push('errors is not [{field, code, message}]');
  }
  return problems;
}

/** Text no answer may carry: a stack frame, the database's own error text. */
export const LEAK_PATTERNS: Array<[string, RegExp]> = [
  ['stack trace', /\bat [\w$.<>[\] ]+ \(|\.(?:ts|js|mjs):\d+:\d+|node_modules\//],
  [
    'SQL error text',
    /\bQueryFailedError\b|syntax error at or near|violates (?:unique|foreign key|check|not-null) constraint|duplicate key value|invalid input syntax for|relation "\w+" does not exist|column "\w+" (?:of relation|does not exist)|current transaction is aborted|\bSQLSTATE\b/i,
  ],
  [
    'SQL statement',
    /\b(?:SELECT\s+[\w"*., ]+\s+FROM\s+"?\w+|INSERT\s+INTO\s+"?\w+"?\s*\(|UPDATE\s+"?\w+"?\s+SET\s+"?\w+"?\s*=|DELETE\s+FROM\s+"?\w+)/i,
  ],
];
