import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A file of DATA_DIR that is created once and then reused (the development keys): its content, or,
 * when it does not exist yet, `create()`'s. The new content is written whole to a temporary file
 * and linked into place; the link fails when another process linked its own first — replicas
 * started at the same moment on one DATA_DIR — and that one is read instead. Every process ends
 * with the same content: checking for the file and then writing it let each replica keep a key
 * of its own, and tokens signed by one were refused by the others.
 */
export function readOrCreateOnce(path: string, create: () => string, mode = 0o600): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, create(), { mode });
  chmodSync(temporary, mode); // whatever the umask
  try {
    linkSync(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temporary);
  }
  return readFileSync(path, 'utf8');
}
