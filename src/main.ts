import 'reflect-metadata';
import { createApp } from './app.factory.js';
import { ConfigValidationError, loadAppConfig } from './common/config/index.js';
import { resolveDatabase } from './database/database-runtime.js';

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
  const log = (msg: string) => process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), context: 'Startup', msg })}\n`);
  const database = await resolveDatabase(config, log);

  let app;
  try {
    app = await createApp({ config, database });
  } catch (err) {
    await database.stop();
    throw err;
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: finishing in-flight requests and shutting down`);
    const timer = setTimeout(() => {
      log(`shutdown took longer than ${config.shutdownTimeoutMs} ms: exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    timer.unref();
    try {
      await app.close();
    } finally {
      await database.stop();
    }
    process.exit(0);
  };
  // Nest's own shutdown hooks would exit before the embedded database stops: handle the signals here.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  log(`listening on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port} — Swagger UI at /docs`);
}

main().catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
