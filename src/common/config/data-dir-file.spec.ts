import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOrCreateOnce } from './data-dir-file.js';

describe('readOrCreateOnce (keys generated into DATA_DIR)', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'medios-data-dir-'));

  it('creates the file once, readable by its owner only, and reads it back ever after', () => {
    const path = join(dir(), 'nested', 'key.pem');
    expect(readOrCreateOnce(path, () => 'first')).toBe('first');
    expect(readOrCreateOnce(path, () => 'second')).toBe('first');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('reads the content of a process that created the file while it was generating its own, and leaves no temporary file', () => {
    const folder = dir();
    const path = join(folder, 'key.pem');
    // another replica links its key into place after this one found no file
    const content = readOrCreateOnce(path, () => {
      writeFileSync(path, 'the other replica');
      return 'mine';
    });
    expect(content).toBe('the other replica');
    expect(readdirSync(folder)).toEqual(['key.pem']);
  });

  it('gives every one of several processes started together the same content', async () => {
    const path = join(dir(), 'key.pem');
    const module = fileURLToPath(new URL('./data-dir-file.ts', import.meta.url));
    const script = `import { readOrCreateOnce } from ${JSON.stringify(module)};
      import { randomUUID } from 'node:crypto';
      process.stdout.write(readOrCreateOnce(${JSON.stringify(path)}, () => randomUUID()));`;
    const run = () =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', script], (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        ),
      );
    const contents = await Promise.all(Array.from({ length: 8 }, run));
    expect(new Set(contents).size).toBe(1);
    expect(contents[0]).toBe(readFileSync(path, 'utf8'));
  });
});
