import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import type { AppModuleOptions } from '../../src/app.module.js';
import { loadAppConfig, type AppConfig } from '../../src/common/config/index.js';
import type { Clock } from '../../src/common/context/clock.js';
import type { DatabaseRuntime } from '../../src/database/database-runtime.js';
import { engineOf } from '../../src/database/database-url.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { checkConformance } from './openapi-conformance.js';
import { createTestDatabase, dropTestDatabase, makeInsertsFail, placeholders } from './test-database.js';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './test-env.js';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** raw payload (e.g. malformed JSON, or bytes that are not UTF-8); sent as-is with content-type application/json */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  /** the client's socket address (fastify inject's remoteAddress; default 127.0.0.1) */
  remoteAddress?: string;
}

export interface CreatedUser {
  id: number;
  username: string;
  password: string;
  token: string;
  refreshToken: string;
}

/**
 * One application on its own fresh database (cloned from the migrated template on PostgreSQL,
 * migrated from scratch on SQL Server), driven in-process with fastify's inject.
 */
export interface TestAppOptions {
  /** environment overrides; a function receives the URL of the app's fresh database */
  env?: Record<string, string> | ((databaseUrl: string) => Record<string, string>);
  clock?: Clock;
  extraModules?: AppModuleOptions['extraModules'];
}

export class TestApp {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly db: DataSource,
    readonly config: AppConfig,
    private readonly databaseName: string,
  ) {}

  static async create(options: TestAppOptions = {}): Promise<TestApp> {
    const { name, url } = await createTestDatabase(loadAppConfig(process.env));
    const engine = engineOf(url);
    const dialect = dialectFor(engine);
    const env = typeof options.env === 'function' ? options.env(url) : options.env;
    const config = loadAppConfig({ ...process.env, ...env, DATABASE_URL: url });
    const database: DatabaseRuntime = { url, engine, dialect, embedded: false, stop: async () => {} };
    const app = await createApp({ config, database, clock: options.clock, extraModules: options.extraModules });
    return new TestApp(app, app.get<DataSource>(getDataSourceToken()), config, name);
  }

  /**
   * A new app with the bootstrap `admin` (every permission) signed in: the usual start of a test
   * file, `beforeAll(async () => ({ t, admin, adminId } = await TestApp.withAdmin()))`.
   */
  static async withAdmin(options: TestAppOptions = {}): Promise<{ t: TestApp; admin: string; adminId: number }> {
    const t = await TestApp.create(options);
    const admin = await t.adminToken();
    const [row] = await t.query<{ id: number | string }>('SELECT id FROM users WHERE username = $1', [ADMIN_USERNAME]);
    return { t, admin, adminId: Number(row!.id) };
  }

  get engine() {
    return engineOf(this.config.databaseUrl ?? 'postgres://');
  }

  async close(): Promise<void> {
    await this.app.close();
    // with the settings it was created with, not the app's (a test's short statement timeout
    // would cancel the drop)
    await dropTestDatabase(this.databaseName);
  }

  async request<T = any>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS',
    url: string,
    options: RequestOptions = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | Buffer | undefined;
    if (options.raw !== undefined) {
      payload = options.raw;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const query = options.query
      ? Object.fromEntries(
          Object.entries(options.query)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k, String(v)]),
        )
      : undefined;
    const res = await this.app.inject({
      method,
      url,
      headers,
      payload,
      query,
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      /* not JSON */
    }
    const result = { status: res.statusCode, body: body as T, headers: res.headers as HttpResult['headers'], text: res.body };
    checkConformance(method, url, result);
    return result;
  }

  get<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('GET', url, options);
  }
  post<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', url, { ...options, body });
  }
  put<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', url, { ...options, body });
  }
  delete<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('DELETE', url, options);
  }

  async login(username: string, password: string): Promise<{ accessToken: string; refreshToken: string; body: any }> {
    const res = await this.post('/api/v1/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${res.text}`);
    return { accessToken: res.body.accessToken, refreshToken: res.body.refreshToken, body: res.body };
  }

  private adminTokenCache: string | undefined;

  /**
   * An access token of the bootstrap `admin` (every permission), signed in again when a test has
   * ended the cached token's session (an update, deactivation or password change of `admin`).
   */
  async adminToken(): Promise<string> {
    if (this.adminTokenCache) {
      const sid = JSON.parse(Buffer.from(this.adminTokenCache.split('.')[1] ?? '', 'base64url').toString('utf8')).sid as string;
      const live = await this.query('SELECT 1 AS live FROM sessions WHERE id = $1 AND ended_at IS NULL', [sid]);
      if (live.length) return this.adminTokenCache;
    }
    this.adminTokenCache = (await this.login(ADMIN_USERNAME, ADMIN_PASSWORD)).accessToken;
    return this.adminTokenCache;
  }

  /**
   * A user with the given role, inserted straight into the store (no audit event), signed in.
   * For setting up callers; tests of user management go through the API instead.
   */
  async createUser(
    rol: string,
    options: { username?: string; password?: string; activo?: boolean; overrides?: { granted: string[]; denied: string[] } } = {},
  ): Promise<CreatedUser> {
    const username = options.username ?? `u_${rol}_${randomBytes(4).toString('hex')}`;
    const password = options.password ?? `Pw-${randomBytes(8).toString('hex')}`;
    const hash = await bcrypt.hash(password, 4);
    const roles: Array<{ id: number }> = await this.db.query(this.sql('SELECT id FROM roles WHERE codigo = $1'), [rol]);
    if (!roles[0]) throw new Error(`no role ${rol}`);
    // raw SQL: `into('users')` would resolve to UserEntity and drop these snake_case column names
    await this.query(
      `INSERT INTO users (username, password_hash, nombre, apellido, email, role_id, activo, must_change_password, permission_overrides)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        username,
        hash,
        'Test',
        rol,
        `${username}@example.test`,
        roles[0].id,
        true,
        false,
        JSON.stringify(options.overrides ?? { granted: [], denied: [] }),
      ],
    );
    const rows: Array<{ id: number }> = await this.db.query(this.sql('SELECT id FROM users WHERE username = $1'), [username]);
    const tokens = await this.login(username, password);
    if (options.activo === false) await this.db.query(this.sql('UPDATE users SET activo = $1 WHERE username = $2'), [false, username]);
    return { id: Number(rows[0]!.id), username, password, token: tokens.accessToken, refreshToken: tokens.refreshToken };
  }

  /** Writes `$1, $2…` placeholders in the engine's own style, for small raw queries in tests. */
  sql(text: string): string {
    return placeholders(this.engine, text);
  }

  /** The variant of a raw statement for this app's engine, placeholders translated like `sql()`. */
  sqlFor(variants: { postgres: string; mssql: string }): string {
    return this.sql(variants[this.engine]);
  }

  /**
   * Makes every INSERT into `table` fail at the database with `message` (a trigger that raises),
   * on either engine, until the returned function restores it. For fail-closed tests.
   */
  makeInsertsFail(table: string, message: string): Promise<() => Promise<void>> {
    return makeInsertsFail(this.db, this.engine, table, message);
  }

  /** Runs a raw query with `$n` placeholders. */
  query<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.db.query(this.sql(text), params);
  }

  /** Audit events, newest first, optionally for one action. */
  async auditEvents(filter: { action?: string; targetType?: string; targetId?: string } = {}): Promise<any[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [col, v] of [
      ['action', filter.action],
      ['target_type', filter.targetType],
      ['target_id', filter.targetId],
    ] as const) {
      if (v !== undefined) {
        params.push(v);
        where.push(`${col} = $${params.length}`);
      }
    }
    const rows = await this.query(
      `SELECT * FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY occurred_at DESC, id DESC`,
      params,
    );
    return rows.map((r) => ({ ...r, metadata: typeof r.metadata === 'string' ? JSON.parse(r.metadata) : r.metadata }));
  }

  async securityEvents(action?: string): Promise<any[]> {
    const rows = await this.query(
      `SELECT * FROM security_events ${action ? 'WHERE action = $1' : ''} ORDER BY occurred_at DESC, id DESC`,
      action ? [action] : [],
    );
    return rows.map((r) => ({ ...r, metadata: typeof r.metadata === 'string' ? JSON.parse(r.metadata) : r.metadata }));
  }
}

export { ADMIN_PASSWORD, ADMIN_USERNAME };
export { onlyOn, sqlFor, testEngine } from './test-database.js';
export const expectProblem = (res: HttpResult, status: number, code: string) => {
  if (res.status !== status || res.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
};
