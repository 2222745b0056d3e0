import { createHash } from 'node:crypto';

/**
 * The strong entity tag of a representation: a digest of the JSON the client receives, so it
 * changes whenever anything in the answer changes — derived values included (a rubro's `nivel`
 * after an ancestor moves, a user's effective permissions after its role's set changes) — and two
 * byte-identical representations share it.
 */
export function etagOf(representation: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(representation)).digest('base64url').slice(0, 27)}"`;
}

/** What an `If-Match` header asks for: any existing representation, or one of these tags. */
export type IfMatch = { any: true } | { any: false; tags: string[] };

/**
 * Parses `If-Match` (RFC 9110 §13.1.1): `*` or a comma-separated list of entity tags. Weak tags
 * (`W/"…"`) never match, since If-Match uses the strong comparison. Undefined when absent or empty.
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  const raw = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
  if (!raw) return undefined;
  if (raw === '*') return { any: true };
  const tags = raw
    .split(',')
    .map((t) => t.trim())
    .filter((t) => /^"[^"]*"$/.test(t));
  return { any: false, tags };
}
