import bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../../src/common/config/index.js';
import { connectionSettings } from '../../../src/database/database-runtime.js';
import { type Engine, engineOf } from '../../../src/database/database-url.js';
import { dialectFor } from '../../../src/database/dialects/index.js';
import { type Answer, call, ensureBuilt, type RunningServer, startServer } from '../../reliability/support/built-server.js';
import { createTestDatabase, dropTestDatabase, placeholders } from '../../support/test-database.js';
import { ADMIN_PASSWORD } from '../../support/test-env.js';

export type { Answer } from '../../reliability/support/built-server.js';

/** The preload that shifts a service process's clock (scheduled jobs firing at a chosen moment). */
export const SHIFTED_CLOCK = pathToFileURL(fileURLToPath(new URL('./shifted-clock.mjs', import.meta.url))).href;

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * N built service processes (`node dist/src/main.js`, each on its own port) on ONE fresh database
 * cloned from the test run's migrated template, as replicas behind a load balancer: `call` sends
 * each request to the next instance in turn (round-robin), `on(i)` to a chosen one. An owner
 * connection to the same database checks what the rules left behind.
 */
export class Instances {
  /** requests answered by each instance, for the figures */
  readonly served: number[];
  private next = 0;

  private constructor(
    readonly servers: RunningServer[],
    readonly owner: DataSource,
    private readonly engine: Engine,
    private readonly databaseName: string,
  ) {
    this.served = servers.map(() => 0);
  }

  /** `prepare` runs on the new database, as its owner, before the instances start. */
  static async start(
    label: string,
    options: { count?: number; env?: Record<string, string>; prepare?: (owner: DataSource) => Promise<void> } = {},
  ): Promise<Instances> {
    const main = ensureBuilt();
    const config = loadAppConfig(process.env);
    const { name, url } = await createTestDatabase(config);
    const owner = new DataSource(dialectFor(engineOf(url)).dataSourceOptions(connectionSettings(config, url, 'medios-replicas-owner')));
    await owner.initialize();
    await options.prepare?.(owner);
    const count = options.count ?? 3;
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        startServer(main, url, `replicas-${label}-${i + 1}`, {
          // migrations ran on the template; three instances starting together must not race on them
          MIGRATIONS_RUN: 'false',
          METRICS_PORT: '0',
          DB_POOL_SIZE: '10',
          ...options.env,
        }),
      ),
    );
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all(servers.map((s) => s.kill()));
      await owner.destroy();
      await dropTestDatabase(name, config);
      throw (failed as PromiseRejectedResult).reason;
    }
    return new Instances(servers, owner, engineOf(url), name);
  }

  get count(): number {
    return this.servers.length;
  }

  /** The next instance in round-robin order. */
  call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const i = this.next;
    this.next = (this.next + 1) % this.servers.length;
    return this.on(i, method, path, options);
  }

  on(i: number, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    this.served[i] = (this.served[i] ?? 0) + 1;
    return call(this.servers[i]!.port, method, path, { token: options.token, body: options.body, headers: options.headers, timeoutMs: 30_000 });
  }

  /** Raw SQL as the schema owner, `$n` placeholders. */
  query<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.owner.query(placeholders(this.engine, text), params);
  }

  /** Signs in on the next instance; throws unless 200. */
  async login(username: string, password: string): Promise<{ accessToken: string; refreshToken: string }> {
    const res = await this.call('POST', '/api/v1/auth/login', { body: { username, password } });
    if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  adminLogin(): Promise<{ accessToken: string; refreshToken: string }> {
    return this.login('admin', ADMIN_PASSWORD);
  }

  /** A user with `rol`, written as the owner (no password change pending), signed in. */
  async createUser(rol: string): Promise<{ id: number; username: string; password: string; token: string; refreshToken: string }> {
    const username = `u_${rol}_${randomBytes(4).toString('hex')}`;
    const password = `Pw-${randomBytes(8).toString('hex')}`;
    const [role] = await this.query<{ id: number }>('SELECT id FROM roles WHERE codigo = $1', [rol]);
    if (!role) throw new Error(`no role ${rol}`);
    await this.query(
      `INSERT INTO users (username, password_hash, nombre, apellido, email, role_id, activo, must_change_password, permission_overrides)
       VALUES ($1, $2, 'Test', $3, $4, $5, $6, $7, $8)`,
      [username, await bcrypt.hash(password, 4), rol, `${username}@example.test`, role.id, true, false, JSON.stringify({ granted: [], denied: [] })],
    );
    const [row] = await this.query<{ id: number }>('SELECT id FROM users WHERE username = $1', [username]);
    const tokens = await this.login(username, password);
    return { id: Number(row!.id), username, password, token: tokens.accessToken, refreshToken: tokens.refreshToken };
  }

  /** Everything the instances wrote (one JSON log line each), parsed. */
  logLines(): Array<Record<string, unknown> & { instance: number }> {
    return this.servers.flatMap((s, i) =>
      s
        .output()
        .split('\n')
        .flatMap((line) => {
          try {
            return [{ ...(JSON.parse(line) as Record<string, unknown>), instance: i }];
          } catch {
            return [];
          }
        }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.kill()));
    await this.owner.destroy();
    await dropTestDatabase(this.databaseName);
  }
}
