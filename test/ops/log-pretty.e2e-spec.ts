import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../reliability/support/built-server.js';

/**
 * LOG_PRETTY=true where pino-pretty is not installed (the image installs no development
 * dependency): the logger keeps its JSON lines instead of a transport that would stop the process
 * at its first line. Run on the built service in a child process whose resolution of pino-pretty
 * fails, as in the image.
 */
describe('LOG_PRETTY', () => {
  const transportOf = (blockPretty: boolean): string => {
    const logging = pathToFileURL(join(dirname(ensureBuilt()), 'common', 'logging', 'logging.js')).href;
    const dir = mkdtempSync(join(tmpdir(), 'log-pretty-'));
    const preload = join(dir, 'no-pino-pretty.mjs');
    writeFileSync(
      preload,
      `import Module from 'node:module';
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'pino-pretty') throw Object.assign(new Error("Cannot find module 'pino-pretty'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};\n`,
    );
    const script = `const { pinoOptions } = await import(${JSON.stringify(logging)});
const options = pinoOptions({ logLevel: 'info', logPretty: true });
console.log(JSON.stringify(options.pinoHttp.transport?.target ?? (Array.isArray(options.pinoHttp) ? options.pinoHttp[0].transport?.target : null) ?? 'json'));`;
    const child = spawnSync(
      process.execPath,
      [...(blockPretty ? ['--import', pathToFileURL(preload).href] : []), '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
      },
    );
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout.trim()) as string;
  };

  it('prints through pino-pretty where it is installed', () => {
    expect(transportOf(false)).toBe('pino-pretty');
  });

  it('keeps the JSON lines where pino-pretty is not installed, instead of failing to start', () => {
    expect(transportOf(true)).toBe('json');
  });
});
