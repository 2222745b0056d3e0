import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from 'nestjs-pino';
import { createApp } from './app.factory.js';
import { AppModule } from './app.module.js';
import { AuditSealService } from './audit/integrity/audit-seal.service.js';
import { auditVerifyCommand, AuditVerifyFailure, AuditVerifyUsageError, parseAuditVerifyArgs } from './audit/integrity/audit-verify.command.js';
import { IntegrityCheckService } from './audit/maintenance/integrity-check.service.js';
import type { JobResult, JobStatus, MaintenanceJobName } from './audit/maintenance/maintenance-job.runner.js';
import { PartitionManagerService } from './audit/maintenance/partition-manager.service.js';
import { RetentionService } from './audit/maintenance/retention.service.js';
import { type AppConfig, ConfigValidationError, loadAppConfig } from './common/config/index.js';
import { pinoOptions, startLogger } from './common/logging/logging.js';
import { buildOpenApiDocument } from './common/swagger/swagger.js';
import { type DatabaseRuntime, resolveDatabase, revertLastMigration, runMigrations } from './database/database-runtime.js';
import { AppMetrics } from './observability/metrics.js';
import { resetPasswordAsSystem } from './users/operator-password-reset.js';

/**
 * Operator CLI: `node dist/src/cli.js <command>` (npm run cli -- <command>; npm run db:migrate | job -- <name> | openapi).
 * The database is resolved as the server does (DATABASE_URL, or the embedded PostgreSQL under
 * DATA_DIR, stopped again at the end). Results go to stdout as JSON; progress to stderr.
 */
const USAGE = `usage: node dist/src/cli.js <command>

  migrate                      apply pending migrations (npm run db:migrate)
  migrate:revert               revert the last applied migration (its down(), one transaction); stop every instance
                               first (docs/operations.md, "Reverting a migration")
  job <name>                   run one maintenance job now and print its result (npm run job -- <name>)
                                 partition-manager   monthly partitions of both event stores through the 3rd month ahead
                                 retention           audit rows > 10 years, security rows > 5 years, expired history
                                 integrity-check     versioning, partitions and audit:verify; system.integrity_alert on a failure
                                 audit-seal          seal what both event stores committed since the last seal
  audit:verify [--store audit_events|security_events] [--from <ISO instant>] [--to <ISO instant>] [--public-key <file>] [--json]
                               recompute every row hash and seal, check signatures and the seal chain; a report naming
                               each modified, deleted, inserted or re-ordered event; exit 0 only when intact, 2 otherwise.
                               Read-only; --public-key (PEM or the JWKS of /.well-known/audit-keys.json) replaces the
                               configured keys, so an auditor needs only a database (export) and the public key
  openapi [--out <file>]       write the OpenAPI document (default: openapi.json at the repository root)
  admin:reset-password <user>  give a user a temporary password, printed once (audited with actor "system")

exit codes: 0 done, 1 failed, 2 alert (inconsistency found, or a partition month left uncovered), 64 usage, 75 job busy (another instance runs it), 78 bad configuration`;

const JOBS: Record<MaintenanceJobName, (app: INestApplicationContext) => Promise<JobResult>> = {
  'partition-manager': (app) => app.get(PartitionManagerService).run(),
  retention: (app) => app.get(RetentionService).run(),
  'integrity-check': (app) => app.get(IntegrityCheckService).run(),
  'audit-seal': (app) => app.get(AuditSealService).run(),
};

const EXIT_FOR_STATUS: Record<JobStatus, number> = { ok: 0, failed: 1, alert: 2, busy: 75 };

class UsageError extends Error {}

const progress = (msg: string) => process.stderr.write(`${msg}\n`);
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  // asked for: the usage is the result (stdout, 0); no command is a usage error (stderr, 64)
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!command) throw new UsageError('a command is needed');
  switch (command) {
    case 'migrate':
      if (args.length) throw new UsageError('migrate takes no arguments');
      return withDatabase(async (config, database) => {
        const applied = await runMigrations(config, database.url, progress);
        print({ command: 'migrate', applied });
        return 0;
      });
    case 'migrate:revert':
      if (args.length) throw new UsageError('migrate:revert takes no arguments');
      return withDatabase(async (config, database) => {
        const reverted = await revertLastMigration(config, database.url, progress);
        print({ command: 'migrate:revert', reverted: reverted ?? null });
        return 0;
      });
    case 'job':
      return runJob(args);
    case 'openapi':
      return writeOpenApi(args);
    case 'admin:reset-password':
      return resetPassword(args);
    case 'audit:verify':
      return auditVerify(args);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

async function runJob(args: string[]): Promise<number> {
  const name = args[0] as MaintenanceJobName | undefined;
  if (!name || !(name in JOBS) || args.length > 1) throw new UsageError(`job needs one of: ${Object.keys(JOBS).join(', ')}`);
  const startedAt = new Date().toISOString();
  let printed = false;
  try {
    return await withApplicationContext(async (app) => {
      const result = await JOBS[name](app);
      print(result);
      printed = true;
      return EXIT_FOR_STATUS[result.status];
    });
  } catch (err) {
    // stdout holds one JSON document: a failure after the result (closing the application) is only told on stderr
    if (err instanceof ConfigValidationError || printed) throw err;
    // the job never ran (the database unreachable, a migration missing…): still its JSON result
    const error = errorText(err);
    print({ job: name, status: 'failed', startedAt, finishedAt: new Date().toISOString(), error } satisfies JobResult);
    progress(`${name}: failed: ${error}`);
    return EXIT_FOR_STATUS.failed;
  }
}

/** The application without HTTP, the scheduler or the metrics listener, for one operator command. */
async function withApplicationContext(work: (app: INestApplicationContext) => Promise<number>): Promise<number> {
  return withDatabase(async (config, database) => {
    const options = { config: { ...config, jobsEnabled: false, metricsPort: 0 }, database, metrics: new AppMetrics(), operatorCommand: true };
    const app = await NestFactory.createApplicationContext(AppModule.forRoot(options), {
      logger: startLogger(pinoOptions(options.config, options.operatorCommand)),
      bufferLogs: true,
      abortOnError: false,
    });
    try {
      app.useLogger(app.get(Logger));
      return await work(app);
    } finally {
      await app.close();
    }
  });
}

/**
 * Operator recovery (e.g. a locked-out admin): a temporary password for a user, printed once,
 * with the same effects and audit event as POST /api/v1/users/{id}/password-reset, the actor
 * being the `system` user.
 */
async function resetPassword(args: string[]): Promise<number> {
  const username = args[0];
  if (!username || args.length > 1) throw new UsageError('admin:reset-password needs one username');
  return withApplicationContext(async (app) => {
    const temporaryPassword = await resetPasswordAsSystem(app, username);
    if (!temporaryPassword) {
      progress(`no user ${username}`);
      return 1;
    }
    print({ command: 'admin:reset-password', username, temporaryPassword, mustChangePassword: true });
    return 0;
  });
}

async function auditVerify(args: string[]): Promise<number> {
  parseAuditVerifyArgs(args); // usage errors before any database is started
  return withDatabase((config, database) => auditVerifyCommand(args, config, database, (text) => process.stdout.write(text)));
}

async function writeOpenApi(args: string[]): Promise<number> {
  let out = join(repositoryRoot(), 'openapi.json');
  if (args.length) {
    if (args[0] !== '--out' || !args[1] || args.length > 2) throw new UsageError('openapi takes only --out <file>');
    out = resolve(args[1]);
  }
  return withDatabase(async (config, database) => {
    const app = await createApp({ config: { ...config, jobsEnabled: false, metricsPort: 0 }, database, operatorCommand: true });
    try {
      writeFileSync(out, `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`);
      progress(`OpenAPI document written to ${out}`);
      return 0;
    } finally {
      await app.close();
    }
  });
}

/** Loads the configuration, resolves the database, runs `work`, and always stops an embedded database. */
async function withDatabase(work: (config: AppConfig, database: DatabaseRuntime) => Promise<number>): Promise<number> {
  const loaded = loadAppConfig();
  // The result is the CLI's output; the service's own info logs would drown it unless asked for.
  const config: AppConfig = { ...loaded, logLevel: process.env.LOG_LEVEL ? loaded.logLevel : 'warn' };
  const database = await resolveDatabase(config, progress);
  try {
    return await work(config, database);
  } finally {
    await database.stop();
  }
}

/** The nearest directory above this file that holds package.json (works from src/ and dist/src/). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/**
 * An error's message, never empty: a connection refused on every address of a name (`localhost` as
 * ::1 and 127.0.0.1) is an AggregateError with no message of its own, only its errors' and a code.
 */
function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.message) return err.message;
  const inner = err instanceof AggregateError ? err.errors.map(errorText).filter(Boolean).join('; ') : '';
  return inner || (err as NodeJS.ErrnoException).code || err.name;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof AuditVerifyUsageError) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      process.exit(64);
    }
    if (err instanceof ConfigValidationError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    if (err instanceof AuditVerifyFailure) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    // what went wrong, in one line; the stack only when asked for (LOG_LEVEL=debug)
    const detail = err instanceof Error && process.env.LOG_LEVEL === 'debug' && err.stack ? err.stack : errorText(err);
    process.stderr.write(`fatal: ${detail}\n`);
    process.exit(1);
  },
);
