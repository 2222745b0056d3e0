import { describe, expect, it } from '@jest/globals';
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA = 'clients/typescript/schema.d.ts';

/**
 * The committed typed client is generated from the committed openapi.json (whose own drift test
 * ties it to the code): regenerating it with the `client` npm script must change nothing.
 */
describe('typed client drift', () => {
  it('matches what `npm run client` generates from openapi.json (regenerate with `npm run client`)', () => {
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.client ?? '';
    expect(script).toContain(SCHEMA);
    const dir = mkdtempSync(join(tmpdir(), 'client-drift-'));
    try {
      const out = join(dir, 'schema.d.ts');
      execSync(script.replace(SCHEMA, out), {
        cwd: ROOT,
        stdio: 'pipe',
        env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` },
      });
      expect(readFileSync(out, 'utf8')).toEqual(readFileSync(join(ROOT, SCHEMA), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
