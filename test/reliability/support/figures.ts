import { mkdirSync, readFileSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where every reliability suite appends its measured figures (rendered by report.mjs). */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const FIGURES_FILE = join(ROOT, 'test-results', 'reliability.json');

export interface FiguresFile {
  /** one entry per suite, replaced by the suite's latest run */
  suites: Record<string, { recordedAt: string; engine: string; summary: string; figures: Record<string, unknown> }>;
}

/**
 * Prints the suite's one-line summary (e.g. `fail-closed: 43 operations, 43 held`) and stores it
 * with the detailed figures in test-results/reliability.json. Suites run in parallel workers, so
 * the read-modify-write of the file happens under a lock directory.
 */
export function recordFigures(suite: string, summary: string, figures: Record<string, unknown>): void {
  process.stdout.write(`\n${summary}\n`);
  mkdirSync(dirname(FIGURES_FILE), { recursive: true });
  withLock(() => {
    let file: FiguresFile = { suites: {} };
    try {
      file = JSON.parse(readFileSync(FIGURES_FILE, 'utf8')) as FiguresFile;
      file.suites ??= {};
    } catch {
      /* first suite of the run, or an unreadable file: start over */
    }
    const engine = process.env.TEST_SERVER_URL?.startsWith('mssql') || process.env.TEST_SERVER_URL?.startsWith('sqlserver') ? 'mssql' : 'postgres';
    file.suites[suite] = { recordedAt: new Date().toISOString(), engine, summary, figures };
    const tmp = `${FIGURES_FILE}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`);
    renameSync(tmp, FIGURES_FILE);
  });
}

function withLock(fn: () => void): void {
  const lock = `${FIGURES_FILE}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) {
        rmdirSync(lock); // a lock left by a killed run
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    fn();
  } finally {
    rmdirSync(lock);
  }
}
