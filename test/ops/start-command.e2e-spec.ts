import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * `npm start`, the container's CMD and the benchmark (bench/run.mjs reads the flags of `npm start`)
 * must start the service the same way: same entry point, same Node flags.
 */
describe('the start command', () => {
  it('is the same in package.json and in the Dockerfile', () => {
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const cmd = /^CMD (\[.*\])\s*$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(cmd).toBeDefined();
    expect(JSON.parse(cmd as string)).toEqual(start.trim().split(/\s+/));
    expect(start).toMatch(/^node (--\S+ )*dist\/src\/main\.js$/);
  });
});
