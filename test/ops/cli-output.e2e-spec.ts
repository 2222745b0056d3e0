import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadAppConfig } from '../../src/common/config/index.js';
import { connectionSettings } from '../../src/database/database-runtime.js';
import { dialectFor } from '../../src/database/dialects/index.js';
import { engineOf } from '../../src/database/database-url.js';
import { ensureBuilt } from '../reliability/support/built-server.js';
import { createTestDatabase, dropTestDatabase } from '../support/test-database.js';

/**
 * The built CLI as a Kubernetes CronJob runs it (`node dist/src/cli.js job <name>`): its stdout is
 * its JSON result alone — logs go to stderr — and an operator command never creates the bootstrap
 * `admin` (whose generated password would land in the job's logs, and whose ADMIN_PASSWORD the
 * server's first start would then ignore).
 */
describe('the CLI on a fresh database', () => {
  let cli: string;
  let database: { name: string; url: string };

  beforeAll(async () => {
    cli = join(dirname(ensureBuilt()), 'cli.js');
    database = await createTestDatabase();
  }, 180_000);
  afterAll(async () => {
    if (database) await dropTestDatabase(database.name);
  });

  const runOn = (url: string, ...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [cli, ...args],
        { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', ADMIN_PASSWORD: '' }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const run = (...args: string[]) => runOn(database.url, ...args);

  it('prints its usage on stdout when asked (0), and on stderr with 64 for a missing or wrong command or argument', async () => {
    const asked = await run('--help');
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/^usage: node dist\/src\/cli\.js <command>/);
    for (const args of [[], ['nope'], ['migrate', 'extra'], ['job']]) {
      const wrong = await run(...args);
      expect({ args, code: wrong.code, stdout: wrong.stdout }).toEqual({ args, code: 64, stdout: '' });
      expect(wrong.stderr).toContain('usage: node dist/src/cli.js <command>');
    }
  });

  it('prints a job’s result as JSON on stdout, its logs on stderr, and creates no admin', async () => {
    for (const job of ['audit-seal', 'integrity-check']) {
      const { code, stdout, stderr } = await run('job', job);
      expect({ job, code }).toEqual({ job, code: 0 });
      expect(JSON.parse(stdout)).toMatchObject({ job, status: 'ok' });
      expect(stderr).not.toContain('First start');
    }
    const db = new DataSource(
      dialectFor(engineOf(database.url)).dataSourceOptions(connectionSettings(loadAppConfig(process.env), database.url, 'cli-test')),
    );
    await db.initialize();
    try {
      expect(await db.query(`SELECT username FROM users WHERE username = 'admin'`)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it('prints a failed job’s JSON result when the job cannot even start (an unreachable database), and no stack trace', async () => {
    const unreachable = 'postgres://postgres@127.0.0.1:1/nowhere';
    const { code, stdout, stderr } = await runOn(unreachable, 'job', 'integrity-check');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ job: 'integrity-check', status: 'failed', error: expect.stringContaining('ECONNREFUSED') });
    expect(stderr).not.toMatch(/\n\s+at /);
    const other = await runOn(unreachable, 'admin:reset-password', 'nadie');
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^fatal: .*ECONNREFUSED/m);
    expect(other.stderr).not.toMatch(/\n\s+at /);
  });

  it('audit:verify on a database that is not the service’s names the missing tables (exit 1, no stack trace)', async () => {
    const empty = await createTestDatabase(loadAppConfig(process.env), { migrated: false });
    try {
      const key = join(mkdtempSync(join(tmpdir(), 'cli-verify-')), 'audit.pem');
      writeFileSync(key, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
      const { code, stdout, stderr } = await runOn(empty.url, 'audit:verify', '--public-key', key);
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toContain('cannot verify: the database has no table audit_events, security_events, audit_seals');
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await dropTestDatabase(empty.name);
    }
  });

  it('migrate:revert reverts the last applied migration and prints its name; migrate applies it again', async () => {
    const reverted = await run('migrate:revert');
    expect(reverted.code).toBe(0);
    const { command, reverted: name } = JSON.parse(reverted.stdout) as { command: string; reverted: string };
    expect(command).toBe('migrate:revert');
    expect(name).toMatch(/\d{13}$/);
    const migrated = await run('migrate');
    expect({ code: migrated.code, result: JSON.parse(migrated.stdout) }).toEqual({ code: 0, result: { command: 'migrate', applied: [name] } });
    expect((await run('migrate:revert', 'extra')).code).toBe(64);
  });
});
