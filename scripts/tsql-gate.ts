/**
 * T-SQL static gate: parses every statement the SQL Server migrations (up and down) and the SQL
 * Server dialect send with Debian's sqlfluff (`sqlfluff parse`, dialect tsql), after masking the
 * documented constructs its grammar does not know (test/support/tsql-gate.ts). Exits 1 when any
 * statement does not parse, or when sqlfluff skipped or lost a file.
 *
 *   npx tsx scripts/tsql-gate.ts              the gate (writes test-results/mssql-statements.sql
 *                                             and test-results/tsql-gate/)
 *   npx tsx scripts/tsql-gate.ts --self-test  proves the gate fails: feeds it one broken statement
 *                                             and exits 1 unless the gate rejects it
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { captureMssqlStatements, type SentStatement } from '../test/support/mssql-statements.js';
import { maskForTsqlGrammar, TSQL_MASKS } from '../test/support/tsql-gate.js';

const OUT = resolve('test-results');

interface Segment {
  [key: string]: Segment | Segment[] | string;
}

function unparsable(tree: unknown, path = ''): string[] {
  if (Array.isArray(tree)) return tree.flatMap((t) => unparsable(t, path));
  if (tree && typeof tree === 'object') {
    return Object.entries(tree as Segment).flatMap(([k, v]) => (k === 'unparsable' ? [flatten(v)] : unparsable(v, `${path}/${k}`)));
  }
  return [];
}

function flatten(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(flatten).join('');
  if (v && typeof v === 'object') return Object.values(v).map(flatten).join('');
  return '';
}

/** Parses the statements; answers the failures (empty: every statement parsed). */
function parse(statements: readonly SentStatement[], dir: string): string[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = statements.map((s, i) => {
    const file = join(dir, `${String(i).padStart(3, '0')}-${s.source.replace(/[^\w.-]/g, '_')}.sql`);
    writeFileSync(file, `${maskForTsqlGrammar(s.sql).trim()}\n`);
    return file;
  });
  // large_file_skip_byte_limit = 0: sqlfluff would otherwise skip a long procedure and succeed
  const config = join(dir, 'sqlfluff.cfg');
  writeFileSync(config, '[sqlfluff]\ndialect = tsql\nlarge_file_skip_byte_limit = 0\n');
  const run = spawnSync('sqlfluff', ['parse', '--config', config, '--format', 'json', '--nofail', dir], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.error || run.status !== 0) return [`sqlfluff could not run: ${run.error?.message ?? run.stderr}`];
  const results = JSON.parse(run.stdout) as Array<{ filepath: string; segments: unknown }>;
  const failures: string[] = [];
  const seen = new Set(results.map((r) => resolve(r.filepath)));
  for (const f of files) if (!seen.has(resolve(f))) failures.push(`${f}: not parsed (skipped by sqlfluff)`);
  for (const r of results) {
    if (!r.segments) failures.push(`${r.filepath}: no parse tree`);
    for (const u of unparsable(r.segments)) failures.push(`${r.filepath}: unparsable: ${u.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  return failures;
}

const selfTest = process.argv.includes('--self-test');
if (selfTest) {
  // a statement the server would reject (a missing closing parenthesis), next to a good one
  const failures = parse(
    [
      { source: 'self-test.good', sql: 'SELECT id FROM dbo.roles WHERE codigo = @0;' },
      { source: 'self-test.broken', sql: 'CREATE TABLE dbo.t (id int NOT NULL, CONSTRAINT ck CHECK (id > 0);' },
    ],
    join(OUT, 'tsql-gate-self-test'),
  );
  const rejected = failures.length === 1 && failures[0]!.includes('self-test.broken');
  console.log(
    rejected
      ? 'tsql-gate self-test: the broken statement is rejected, the good one accepted'
      : `tsql-gate self-test FAILED: ${JSON.stringify(failures)}`,
  );
  process.exit(rejected ? 0 : 1);
}

const statements = await captureMssqlStatements();
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'mssql-statements.sql'), statements.map((s) => `-- ${s.source}\n${s.sql.trim()}\nGO\n`).join('\n'));
const failures = parse(statements, join(OUT, 'tsql-gate'));
if (failures.length) {
  console.error(`tsql-gate: ${failures.length} statement(s) do not parse as T-SQL:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`tsql-gate: ${statements.length} statements parse as T-SQL (sqlfluff, dialect tsql; ${TSQL_MASKS.length} documented masks)`);
