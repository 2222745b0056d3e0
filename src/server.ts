import 'reflect-metadata';
import type { Server, ServerResponse } from 'node:http';
import { flushCompileCache } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigValidationError, loadAppConfig } from './common/config/index.js';
import { type EmbeddedDatabase, startEmbeddedDatabase } from './database/embedded/embedded-database.js';
import { stopTracing } from './observability/tracing.js';
import { startupLog } from './common/logging/startup-log.js';

/** after SHUTDOWN_TIMEOUT_MS, how long the rest of the shutdown may take before the process exits 1 */
const HARD_EXIT_GRACE_MS = 5000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadAppConfig();
  } catch (err) {
    if (err instanceof ConfigValidationError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const log = startupLog(config.logLevel);
  // The embedded PostgreSQL boots in its own process while this one loads the application's
  // modules — most of a start's time — instead of after them. Loading them keeps the event loop
  // busy, so they start loading once the postmaster's process exists.
  let launched = () => {};
  const postmasterLaunched = new Promise<void>((resolve) => (launched = resolve));
  const embedded = config.databaseUrl ? undefined : startEmbeddedDatabase(config.dataDir, log, launched);
  embedded?.catch(() => undefined); // awaited by resolveDatabase, once the modules are loaded
  if (embedded) await Promise.race([postmasterLaunched, embedded]); // a start that fails before the launch ends here
  let modules;
  try {
    modules = await Promise.all([import('./app.factory.js'), import('./database/database-runtime.js')]);
  } catch (err) {
    await stopStarted(embedded);
    throw err;
  }
  releaseCompileCache();
  const [{ createApp }, { resolveDatabase }] = modules;
  const database = await resolveDatabase(config, log, embedded);

  let app;
  try {
    app = await createApp({ config, database });
  } catch (err) {
    await database.stop();
    throw err;
  }

  // the open connections, which shutdown ends once their answers are written
  const connections = new Set<Socket>();
  (app.getHttpServer() as Server).on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  /**
   * SIGTERM/SIGINT: stop accepting connections, let the requests in flight finish, stop the jobs,
   * close the pool, stop the embedded database, exit 0. Fastify closes idle keep-alive connections
   * at once and answers 503 to new requests on busy ones; the listening socket closes, so new
   * connections are refused. The wait is bounded: after SHUTDOWN_TIMEOUT_MS the connections still
   * open are cut so the rest of the sequence can run, and if it still has not finished
   * HARD_EXIT_GRACE_MS later (e.g. a query that never returns keeps the pool from closing) the
   * process exits 1.
   */
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: refusing new connections, finishing in-flight requests (at most ${config.shutdownTimeoutMs} ms)`);
    const server = app.getHttpServer() as Server;
    const cut = setTimeout(() => {
      log(`requests still running after ${config.shutdownTimeoutMs} ms (SHUTDOWN_TIMEOUT_MS): closing their connections`, 40);
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    cut.unref();
    endConnectionsAfterTheirAnswers(connections);
    const hardExit = setTimeout(() => {
      log(`shutdown not finished ${HARD_EXIT_GRACE_MS} ms after SHUTDOWN_TIMEOUT_MS: exiting with status 1`, 50);
      process.exit(1);
    }, config.shutdownTimeoutMs + HARD_EXIT_GRACE_MS);
    hardExit.unref();
    let status = 0;
    try {
      await app.close();
    } catch (err) {
      status = 1;
      log(`error while closing the application: ${err instanceof Error ? err.message : String(err)}`, 50);
    }
    try {
      await database.stop();
    } catch (err) {
      status = 1;
      log(`error while stopping the embedded database: ${err instanceof Error ? err.message : String(err)}`, 50);
    }
    try {
      await stopTracing(); // sends the spans still buffered
    } catch (err) {
      log(`error while flushing traces: ${err instanceof Error ? err.message : String(err)}`, 40);
    }
    clearTimeout(cut);
    log(`shutdown complete (${signal})`);
    process.exit(status);
  };
  // Nest's own shutdown hooks would exit before the embedded database stops: handle the signals here.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  // npm runs `npm start`'s script through `sh -c`, and passes a SIGTERM on to that shell only
  // (Debian's sh does not exec the command): an IDE's "stop" left this process, and the embedded
  // PostgreSQL, running on the port. Under npm, the end of the parent is taken as SIGTERM.
  if (process.env.npm_lifecycle_event) {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      log('npm, which started this process, has ended: stopping as on SIGTERM');
      void shutdown('SIGTERM');
    }, 500);
    watch.unref();
  }

  await app.listen({ port: config.port, host: config.host });
  // the bound port, not the configured one: PORT=0 picks a free port
  const address = app.getHttpServer().address() as AddressInfo | null;
  const port = address?.port ?? config.port;
  log(`listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port} — Swagger UI at /docs`, 30, { port });
  releaseCompileCache(); // the modules the start loaded by name (database driver, Swagger UI…)
}

/**
 * Node's compile cache, when NODE_COMPILE_CACHE turns it on, keeps every loaded module's cached code
 * in memory until it is flushed, or else for the life of the process (~15 MB for the application's
 * modules). A flush writes what this start compiled (nothing, when the previous start left the same
 * code) and frees those copies for the process's own later allocations. A no-op when the cache is off.
 */
function releaseCompileCache(): void {
  flushCompileCache();
}

/**
 * At shutdown: each open connection ends once the answer it is writing is written (`end`, which
 * flushes, not `destroy`), and an idle one at once. A request in flight when the signal came was
 * answered on a kept-alive connection that then sat idle and open until SHUTDOWN_TIMEOUT_MS, since
 * fastify closes idle connections only once, when it starts closing.
 */
function endConnectionsAfterTheirAnswers(connections: ReadonlySet<Socket>): void {
  for (const socket of connections) {
    // the answer the connection is serving (Node's own closeIdleConnections reads the same field)
    const answer = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (answer && !answer.writableFinished) answer.once('finish', () => socket.end());
    else socket.end();
  }
}

async function stopStarted(embedded: Promise<EmbeddedDatabase> | undefined): Promise<void> {
  const database = await embedded?.catch(() => undefined);
  await database?.stop();
}

// The reason the process exits, whatever LOG_LEVEL says: a log line like every other (pino's shape).
main().catch((err: unknown) => {
  const error = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { message: String(err) };
  process.stderr.write(`${JSON.stringify({ level: 60, time: Date.now(), context: 'Startup', msg: `start failed: ${error.message}`, err: error })}\n`);
  process.exit(1);
});
