import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EventStore } from '../../database/dialects/sql-dialect.js';

/**
 * The canonical serialization behind `row_hash` and the seals (docs/operations-audit.md,
 * "Canonical serialization"). Version 1, frozen: a change would need a new version.
 *
 * A row's canonical form is the RFC 8785 (JSON Canonicalization Scheme) text of an object holding
 * the store name, `v: 1` and every column except `id` and `row_hash`, with camelCase keys:
 * - `occurredAt`: UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (exactly six fraction digits; a value with a
 *   non-zero seventh digit, which only SQL Server can hold, keeps seven and so never matches a hash
 *   the service wrote);
 * - integers as JSON numbers; absent values (SQL NULL) as `null`;
 * - `correlationId` in lower case (PostgreSQL's uuid and SQL Server's uniqueidentifier print the
 *   same letters differently);
 * - `metadata`: the JSON document itself (not its text), so the key order and number spelling of
 *   jsonb or nvarchar do not matter; RFC 8785 sorts keys and writes numbers the ECMAScript way.
 *
 * The id is not inside the row hash: the database assigns it during the insert, after the service
 * hashed the row, and reading it first would cost a round trip per event. The seals bind each hash
 * to its id instead (`digest` hashes id and row hash together, in id order), so moving a row to
 * another id is reported as a re-ordering.
 */
export const CANONICAL_VERSION = 1;

export interface AuditEventFields {
  occurredAt: string;
  actorUserId: number;
  actorRoleId: number | null;
  ip: string | null;
  userAgent: string | null;
  correlationId: string | null;
  action: string;
  targetType: string;
  targetId: string;
  metadata: unknown;
}

export interface SecurityEventFields {
  occurredAt: string;
  action: string;
  result: string;
  actorUserId: number | null;
  attemptedUsername: string | null;
  sessionId: string | null;
  failureReason: string | null;
  ip: string | null;
  userAgent: string | null;
  metadata: unknown;
}

export type EventFields<S extends EventStore> = S extends 'audit_events' ? AuditEventFields : SecurityEventFields;

/** The hashed fields of each store, in the order of its columns (every column but `id` and `row_hash`). */
export const EVENT_FIELDS = {
  audit_events: ['occurredAt', 'actorUserId', 'actorRoleId', 'ip', 'userAgent', 'correlationId', 'action', 'targetType', 'targetId', 'metadata'],
  security_events: [
    'occurredAt',
    'action',
    'result',
    'actorUserId',
    'attemptedUsername',
    'sessionId',
    'failureReason',
    'ip',
    'userAgent',
    'metadata',
  ],
} as const;

/** RFC 8785 orders keys by their UTF-16 code units, which for these ASCII names is plain `<`. */
const SORTED_KEYS: Record<EventStore, string[]> = {
  audit_events: [...EVENT_FIELDS.audit_events, 'store', 'v'].sort(),
  security_events: [...EVENT_FIELDS.security_events, 'store', 'v'].sort(),
};

interface Es2024String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** The string with any lone surrogate replaced by U+FFFD, as a UTF-8 database would store it. */
export function wellFormed(value: string): string {
  return (value as unknown as Es2024String).toWellFormed();
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') {
    if (!(value as unknown as Es2024String).isWellFormed()) throw new Error('a string with a lone surrogate cannot be hashed');
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('a non-finite number cannot be hashed');
    return JSON.stringify(value);
  }
  throw new Error(`unexpected value of type ${typeof value}`);
}

/**
 * The canonical text of a row. Written by hand for the fixed columns (the verification of a
 * million rows spends its time here) and by `canonicalize` for the metadata document; the unit
 * test checks that the result equals `canonicalize` of the whole object.
 */
export function canonicalRow<S extends EventStore>(store: S, row: EventFields<S>): string {
  const values = row as unknown as Record<string, unknown>;
  let out = '{';
  for (const key of SORTED_KEYS[store]) {
    if (out.length > 1) out += ',';
    out += `"${key}":`;
    if (key === 'store') out += `"${store}"`;
    else if (key === 'v') out += String(CANONICAL_VERSION);
    else if (key === 'metadata')
      out += values.metadata === null || values.metadata === undefined ? 'null' : (canonicalize(values.metadata) ?? 'null');
    else if (key === 'correlationId')
      out += scalar(typeof values.correlationId === 'string' ? values.correlationId.toLowerCase() : values.correlationId);
    else out += scalar(values[key]);
  }
  return `${out}}`;
}

/** `row_hash`: SHA-256 of the canonical text (UTF-8), lower-case hex. */
export function rowHash<S extends EventStore>(store: S, row: EventFields<S>): string {
  return createHash('sha256').update(canonicalRow(store, row)).digest('hex');
}

/** A Date (millisecond precision) as the canonical instant: six fraction digits, `Z`. */
export function canonicalInstant(date: Date): string {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  return `${iso.slice(0, 23)}000Z`;
}

/**
 * An engine's text of a timestamp as the canonical instant. Accepts PostgreSQL's
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ` and SQL Server's style 121 `YYYY-MM-DD HH:MM:SS.fffffff`:
 * six digits; a seventh digit is kept only when it is not zero.
 */
export function canonicalInstantFromText(text: string): string {
  const m = /^(\d{4,}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,7}))?Z?$/.exec(text.trim());
  if (!m) throw new Error(`not a timestamp: ${text}`);
  let fraction = (m[3] ?? '').padEnd(6, '0');
  if (fraction.length === 7 && fraction.endsWith('0')) fraction = fraction.slice(0, 6);
  return `${m[1]}T${m[2]}.${fraction}Z`;
}

/** The metadata column as read from either engine (jsonb text or nvarchar JSON) as a document. */
export function metadataFromText(text: string | null): unknown {
  return text === null || text === undefined ? null : JSON.parse(text);
}

// ---------------------------------------------------------------------------------------- seals

/** Sorted, disjoint id ranges `[[a, b], …]` written as `a-b,c,d-e` (single ids without a dash). */
export type IdRanges = Array<[number, number]>;

export function rangesFromSortedIds(ids: Iterable<number>): IdRanges {
  const out: IdRanges = [];
  for (const id of ids) {
    const last = out[out.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else if (last && id <= last[1]) throw new Error('ids must be ascending and distinct');
    else out.push([id, id]);
  }
  return out;
}

export function formatRanges(ranges: IdRanges): string {
  return ranges.map(([a, b]) => (a === b ? String(a) : `${a}-${b}`)).join(',');
}

export function parseRanges(text: string): IdRanges {
  if (!text) return [];
  return text.split(',').map((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`bad id range: ${part}`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b < a) throw new Error(`bad id range: ${part}`);
    return [a, b] as [number, number];
  });
}

/**
 * The most ids a seal run lists as pending (drawn but not visible yet). A store the service writes
 * leaves a few (rolled-back inserts; SQL Server's identity cache skips up to 10,000 at a restart);
 * ten million means its sequence was moved far ahead, and listing billions would exhaust the
 * process's memory.
 */
export const MAX_PENDING_IDS = 10_000_000;

/** The ranges of `text`, or undefined when it is not a list of ranges (a seal altered around the service). */
export function parsedRangesOrUndefined(text: string): IdRanges | undefined {
  try {
    return parseRanges(text);
  } catch {
    return undefined;
  }
}

/** How many ids the ranges hold, counted without listing them. */
export function rangesCount(ranges: IdRanges): number {
  let n = 0;
  for (const [a, b] of ranges) n += b - a + 1;
  return n;
}

export function* idsOf(ranges: IdRanges): Generator<number> {
  for (const [a, b] of ranges) for (let id = a; id <= b; id++) yield id;
}

export function rangesContain(ranges: IdRanges, id: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid]!;
    if (id < a) hi = mid - 1;
    else if (id > b) lo = mid + 1;
    else return true;
  }
  return false;
}

export function countRanges(ranges: IdRanges): number {
  return ranges.reduce((n, [a, b]) => n + (b - a + 1), 0);
}

/** Bytes of a row hash that each seal keeps per covered event (`rowTags`), to name a changed event by id. */
export const ROW_TAG_BYTES = 8;

/** What a seal says, without its signature. */
export interface SealBody {
  store: EventStore;
  /** 1, 2, 3 … per store, without gaps */
  seq: number;
  firstId: number;
  lastId: number;
  /** every id at or below it is covered by this or an earlier seal, listed in `pending`, or was never committed */
  upTo: number;
  /** covered ids, compact ranges */
  ids: string;
  /** ids at or below `upTo` that are not covered yet because their transaction may still commit */
  pending: string;
  count: number;
  /** SHA-256 over (8-byte big-endian id ‖ 32-byte row hash) of every covered event, in id order, hex */
  digest: string;
  /** the first ROW_TAG_BYTES of each covered row hash, in id order, base64 */
  rowTags: string;
  /** the oldest and newest occurred_at of the covered events (canonical instants) */
  firstOccurredAt: string;
  lastOccurredAt: string;
  /** sealHash of the previous seal of the store, null for the first */
  previousSealHash: string | null;
  sealedAt: string;
  keyId: string;
}

export interface Seal extends SealBody {
  /** Ed25519 over canonicalSeal(body), base64 */
  signature: string;
}

/** The signed text of a seal: RFC 8785 of its body (every field but the signature), prefixed with the version. */
export function canonicalSeal(body: SealBody): string {
  const {
    store,
    seq,
    firstId,
    lastId,
    upTo,
    ids,
    pending,
    count,
    digest,
    rowTags,
    firstOccurredAt,
    lastOccurredAt,
    previousSealHash,
    sealedAt,
    keyId,
  } = body;
  return canonicalize({
    v: CANONICAL_VERSION,
    store,
    seq,
    firstId: String(firstId),
    lastId: String(lastId),
    upTo: String(upTo),
    ids,
    pending,
    count,
    digest,
    rowTags,
    firstOccurredAt,
    lastOccurredAt,
    previousSealHash,
    sealedAt,
    keyId,
  }) as string;
}

/** The hash the next seal chains to: SHA-256 of the canonical seal text, hex. */
export function sealHash(body: SealBody): string {
  return createHash('sha256').update(canonicalSeal(body)).digest('hex');
}

/** Accumulates the digest and row tags of a seal, one covered event at a time, in id order. */
export class SealDigest {
  private readonly hash = createHash('sha256');
  private readonly tags: Buffer[] = [];
  private readonly prefix = Buffer.alloc(8);
  count = 0;

  add(id: number, rowHashHex: string): void {
    this.prefix.writeBigUInt64BE(BigInt(id));
    const h = Buffer.from(rowHashHex, 'hex');
    if (h.length !== 32) throw new Error(`row hash of event ${id} is not 32 bytes`);
    this.hash.update(this.prefix);
    this.hash.update(h);
    this.tags.push(h.subarray(0, ROW_TAG_BYTES));
    this.count++;
  }

  digest(): { digest: string; rowTags: string } {
    return { digest: this.hash.digest('hex'), rowTags: Buffer.concat(this.tags).toString('base64') };
  }
}

/** The tag of a row hash, as kept in a seal's `rowTags`. */
export function rowTag(rowHashHex: string): string {
  return rowHashHex.slice(0, ROW_TAG_BYTES * 2);
}

/** The row tags of a seal, hex, one per covered id in id order. */
export function decodeRowTags(rowTags: string): string[] {
  const bytes = Buffer.from(rowTags, 'base64');
  const out: string[] = [];
  for (let i = 0; i + ROW_TAG_BYTES <= bytes.length; i += ROW_TAG_BYTES) out.push(bytes.subarray(i, i + ROW_TAG_BYTES).toString('hex'));
  return out;
}

/** A hash written where a row has none (a row inserted around the service): it matches no row. */
export const MISSING_ROW_HASH = '0'.repeat(64);
