import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { ensureBuilt } from '../reliability/support/built-server.js';
import { ROOT } from '../reliability/support/figures.js';

/**
 * A start that fails after the configuration was read — here a database that refuses the
 * connection — still writes what an operator's log pipeline can parse: every line of the process's
 * output is a JSON log line (Nest's start lines and its error included, not its coloured text),
 * and the last on stderr says why the process exits 1.
 */
describe('the built server when its database cannot be reached', () => {
  it('exits 1 and writes only JSON log lines, the error among them', async () => {
    const main = ensureBuilt();
    const child = spawn(process.execPath, [main], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        // port 1: nothing listens there, the connection is refused at once
        DATABASE_URL: 'postgres://medios@127.0.0.1:1/medios',
        JWT_PRIVATE_KEY: process.env.JWT_PRIVATE_KEY,
        JWT_PUBLIC_KEY: process.env.JWT_PUBLIC_KEY,
        AUDIT_SIGNING_KEY: process.env.AUDIT_SIGNING_KEY,
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
        LOG_LEVEL: 'info',
        JOBS_ENABLED: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.once('close', (status) => done(status)));

    expect(code).toBe(1);
    const lines = output.split('\n').filter((line) => line.length > 0);
    const entries = lines.map((line) => {
      try {
        return JSON.parse(line) as { level: number; context?: string; msg: string; err?: { message?: string } };
      } catch {
        throw new Error(`not a JSON log line: ${line}\n--- whole output:\n${output}`);
      }
    });
    expect(entries.some((entry) => entry.context === 'NestFactory' && entry.level === 30)).toBe(true);
    expect(
      entries.some((entry) => entry.context === 'ExceptionHandler' && entry.level === 50 && /ECONNREFUSED/.test(entry.err?.message ?? entry.msg)),
    ).toBe(true);
    // the reason is the last line on stderr (pino's lines on stdout may reach the pipe after it)
    const last = JSON.parse(stderr.trimEnd().split('\n').at(-1)!) as unknown;
    expect(last).toMatchObject({ level: 60, context: 'Startup', msg: expect.stringMatching(/^start failed: .*ECONNREFUSED/) });
  }, 120_000);
});
