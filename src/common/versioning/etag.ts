import { createHash } from 'node:crypto';

/**
 * The strong entity tag of a resource's representation: a digest of its row version and of the
 * JSON the client receives. The version makes every committed change a new tag (even one that
 * leaves the JSON as it was), so two changes based on one read can never both pass If-Match; the
 * JSON makes derived values count too (a rubro's `nivel` after an ancestor moves, a user's
 * effective permissions after its role's set changes).
 */
export function etagOf(version: number, representation: unknown): string {
  const digest = createHash('sha256')
    .update(`${version}:${JSON.stringify(representation)}`)
    .digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

const ROW_VERSION = Symbol('rowVersion');

/**
 * Attaches the row version a read already fetched to its representation (not serialized), so the
 * ETag needs no second query; hot paths use it (the medio read and create).
 */
export function withRowVersion<T extends object>(representation: T, version: number): T {
  Object.defineProperty(representation, ROW_VERSION, { value: version, enumerable: false });
  return representation;
}

export function rowVersionOf(representation: unknown): number | undefined {
  return representation !== null && typeof representation === 'object' ? (representation as { [ROW_VERSION]?: number })[ROW_VERSION] : undefined;
}

/** What an `If-Match` header asks for: any existing representation, or one of these tags. */
export type IfMatch = { any: true } | { any: false; tags: string[] };

/**
 * Parses `If-Match` (RFC 9110 §13.1.1): `*` or a comma-separated list of entity tags. Weak tags
 * (`W/"…"`) never match, since If-Match uses the strong comparison. Undefined only when absent: a
 * blank one names no tag, so it matches nothing (412) — a console that sends
 * `etag ?? ''` for a record it never read the tag of must not overwrite it unconditionally.
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const raw = (Array.isArray(header) ? header.join(',') : header).trim();
  if (raw === '*') return { any: true };
  const tags = raw
    .split(',')
    .map((t) => t.trim())
    .filter((t) => /^"[^"]*"$/.test(t));
  return { any: false, tags };
}
