import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../support/free-port.js';

const run = promisify(execFile);

/**
 * The directory of a PostgreSQL installation with the server tools (initdb, pg_ctl, postgres,
 * pg_basebackup): PG_BIN_DIR, else the newest of Debian's /usr/lib/postgresql/<major>/bin. The
 * embedded PostgreSQL package ships no pg_basebackup, so a streaming standby needs these.
 * `.ci/run` installs Debian's `postgresql` package when none is there.
 */
export function postgresBinDir(): string {
  const candidates = process.env.PG_BIN_DIR
    ? [process.env.PG_BIN_DIR]
    : existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .filter((v) => /^\d+$/.test(v))
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
  const dir = candidates.find((d) => ['initdb', 'pg_ctl', 'postgres', 'pg_basebackup'].every((tool) => existsSync(join(d, tool))));
  if (!dir)
    throw new Error(
      'no PostgreSQL server binaries with pg_basebackup: install Debian\'s "postgresql" package (apt-get install -y postgresql) or set PG_BIN_DIR',
    );
  return dir;
}

const isRoot = process.getuid?.() === 0;

/** initdb and postgres refuse to run as root: as root, every tool runs as the `postgres` OS user. */
async function tool(bin: string, name: string, args: string[]): Promise<string> {
  const path = join(bin, name);
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  try {
    const { stdout, stderr } = await run(cmd, argv, { cwd: tmpdir(), timeout: 120_000 });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${name} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
}

async function ownDir(prefix: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o700);
  if (isRoot) await run('chown', ['postgres:', dir]);
  return dir;
}

/** One PostgreSQL server of the pair, in a temp dir of its own. */
export class PgServer {
  constructor(
    readonly bin: string,
    readonly dataDir: string,
    readonly port: number,
  ) {}

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    await tool(this.bin, 'pg_ctl', ['-D', this.dataDir, '-l', join(this.dataDir, 'server.log'), '-w', '-t', '60', 'start']);
  }

  /** `immediate`: the server dies as in a crash or a lost machine. */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await tool(this.bin, 'pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  async query<T = any>(text: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async destroy(): Promise<void> {
    try {
      await this.stop('immediate');
    } catch {
      /* not running */
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Settings both servers share; the standby inherits them with the base backup. */
function serverConf(port: number, dataDir: string): string {
  return [
    '',
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dataDir}'`,
    'wal_level = replica',
    'max_wal_senders = 5',
    'hot_standby = on',
    'max_connections = 100',
    // a test cluster: durability is not what is tested here
    'fsync = off',
    'synchronous_commit = off',
    'full_page_writes = off',
    '',
  ].join('\n');
}

/**
 * A primary with `wal_level=replica` and a replication entry in pg_hba (trust on 127.0.0.1), and
 * a hot standby made from it with `pg_basebackup -R` (streaming replication, primary_conninfo
 * written by pg_basebackup), both on free ports.
 */
export async function startPrimaryAndStandby(): Promise<{ primary: PgServer; standby: PgServer }> {
  const bin = postgresBinDir();
  const primaryDir = await ownDir('medios-primary-');
  const primary = new PgServer(bin, primaryDir, await freePort());
  await tool(bin, 'initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  appendFileSync(join(primaryDir, 'postgresql.conf'), serverConf(primary.port, primaryDir));
  appendFileSync(join(primaryDir, 'pg_hba.conf'), '\nhost replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n');
  await primary.start();

  const standbyDir = await ownDir('medios-standby-');
  const standby = new PgServer(bin, standbyDir, await freePort());
  try {
    await tool(bin, 'pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      standbyDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    // the copied configuration is the primary's: the standby's own port and socket directory win
    appendFileSync(join(standbyDir, 'postgresql.conf'), serverConf(standby.port, standbyDir));
    await standby.start();
  } catch (err) {
    await primary.destroy();
    rmSync(standbyDir, { recursive: true, force: true });
    throw err;
  }
  return { primary, standby };
}

/** Polls `probe` every 50 ms until it answers true; returns the milliseconds it took (throws after `timeoutMs`). */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
