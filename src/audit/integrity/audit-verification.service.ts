import type { DataSource } from 'typeorm';
import type { EventRow, EventStore, SqlDialect } from '../../database/dialects/sql-dialect.js';
import { STORAGE_POLICY, yearsBefore } from '../maintenance/storage-policy.js';
import type { AuditSealsRepository, StoredSeal } from './audit-seals.repository.js';
import type { AuditVerifyKeys } from './audit-signing-keys.js';
import {
  canonicalInstant,
  canonicalInstantFromText,
  canonicalSeal,
  decodeRowTags,
  formatRanges,
  type IdRanges,
  idsOf,
  MISSING_ROW_HASH,
  parsedRangesOrUndefined,
  parseRanges,
  rangesContain,
  rangesCount,
  rangesFromSortedIds,
  rowTag,
  SealDigest,
  sealHash,
} from './canonical.js';
import { ID_WINDOW, nextEventId, recomputeRowHash } from './event-rows.js';

/** The canonical text of a stored instant, or '' when it is none (a row moved before year 1): sorts before any. */
function readableInstant(text: unknown): string {
  try {
    return canonicalInstantFromText(String(text));
  } catch {
    return '';
  }
}

/**
 * More events than any seal the job writes holds (50,000 by default): a seal claiming more was
 * altered, and its ids are not expanded.
 */
const MAX_SEAL_EVENTS = 1_000_000;

/**
 * How far apart the writers' clocks (and a late event's commit) may put an event's occurredAt and
 * its place in the id order: the verifier's reasoning about retention allows for it.
 */
const CLOCK_TOLERANCE_MS = 3_600_000;

/** A canonical instant moved by `ms`. */
function shiftInstant(instant: string, ms: number): string {
  return canonicalInstant(new Date(Date.parse(instant) + ms));
}

export type FindingKind =
  | 'modified'
  | 'deleted'
  | 'inserted'
  | 'reordered'
  | 'unhashed'
  | 'seal_signature'
  | 'seal_unknown_key'
  | 'seal_modified'
  | 'seal_chain'
  | 'seal_digest'
  | 'seal_malformed';

export interface Finding {
  kind: FindingKind;
  store: EventStore;
  /** the event, for findings about one event */
  id?: number;
  /** the seal, for findings about a seal (and the seal that covers a changed event) */
  seq?: number;
  detail: string;
}

export interface StoreReport {
  store: EventStore;
  seals: number;
  /** seals whose events were compared (the others: outside --from/--to) */
  checkedSeals: number;
  /** of them, seals whose events are all older than the retention cutoff: their missing events are retention's */
  expiredSeals: number;
  /** events read and rehashed */
  events: number;
  /** events not covered by a seal yet: newer than the newest seal, or pending in it */
  unsealed: number;
  newestSeal: { seq: number; sealHash: string; sealedAt: string; lastId: number; upTo: number } | null;
  findings: Finding[];
}

export interface VerificationReport {
  intact: boolean;
  verifiedAt: string;
  stores: StoreReport[];
}

export interface VerifyOptions {
  stores?: readonly EventStore[];
  /** only seals whose events lie (partly) within [from, to] */
  from?: Date;
  to?: Date;
}

const RETENTION_YEARS: Record<EventStore, number> = {
  audit_events: STORAGE_POLICY.auditRetentionYears,
  security_events: STORAGE_POLICY.securityRetentionYears,
};

/** Seals missing from the chain, between two that remain: which ids they may have covered. */
interface ChainGap {
  /** the remaining seal before the gap covered every id up to this one, but its pending ids */
  afterUpTo: number;
  afterPending: IdRanges;
  /** the remaining seal after the gap covers every id up to this one */
  upTo: number;
  finding: Finding;
  /** events in that span covered by no remaining seal */
  orphans: number[];
}

interface SealState {
  seal: StoredSeal;
  /**
   * all of its events are older than the retention cutoff: any of them may be gone (retention runs
   * once a year), so a missing one is not a finding, but each one still present is compared
   */
  expired: boolean;
  /** it reaches past the cutoff: its events before the first one surviving the cutoff may be gone */
  partlyExpired: boolean;
  remaining: number;
  digest: SealDigest;
  incomplete: boolean;
  rowFindings: number;
}

/**
 * Recomputes every row hash and seal of the event stores and reports each difference by id
 * (docs/operations-audit.md, "Verifying"). Read-only: the CLI runs it with nothing but a database
 * connection and the public keys, the integrity check job runs it weekly.
 *
 * Rows are read in id windows (an index on id per partition) and hashed in Node; each seal's
 * digest is recomputed as its events stream past, so memory holds the seals' row tags (8 bytes per
 * sealed event), not the rows.
 */
export class AuditVerifier {
  constructor(
    private readonly dataSource: DataSource,
    private readonly dialect: SqlDialect,
    private readonly seals: AuditSealsRepository,
    private readonly keys: AuditVerifyKeys,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async verify(options: VerifyOptions = {}): Promise<VerificationReport> {
    const verifiedAt = this.now();
    const stores: StoreReport[] = [];
    for (const store of options.stores ?? (['audit_events', 'security_events'] as const))
      stores.push(await this.verifyStore(store, options, verifiedAt));
    return { intact: stores.every((s) => s.findings.length === 0), verifiedAt: canonicalInstant(verifiedAt), stores };
  }

  private async verifyStore(store: EventStore, options: VerifyOptions, now: Date): Promise<StoreReport> {
    const findings: Finding[] = [];
    const seals = await this.seals.all(this.dataSource, store);
    const newest = seals[seals.length - 1] ?? null;

    // ------------------------------------------------------------------ the chain of seals
    let expectedSeq = 1;
    let previousHash: string | null = null;
    const gaps: ChainGap[] = [];
    let previous: StoredSeal | null = null;
    for (const seal of seals) {
      const hash = sealHash(seal);
      if (seal.seq !== expectedSeq) {
        const finding: Finding = {
          kind: 'seal_chain',
          store,
          seq: seal.seq,
          detail: `seal ${expectedSeq}${seal.seq > expectedSeq + 1 ? `-${seal.seq - 1}` : ''} missing before seal ${seal.seq}`,
        };
        findings.push(finding);
        gaps.push({
          afterUpTo: previous?.upTo ?? 0,
          afterPending: parsedRangesOrUndefined(previous?.pending ?? '') ?? [],
          upTo: seal.upTo,
          finding,
          orphans: [],
        });
      } else if (seal.previousSealHash !== previousHash) {
        findings.push({
          kind: 'seal_chain',
          store,
          seq: seal.seq,
          detail: `seal ${seal.seq} does not chain to seal ${seal.seq - 1} (previousSealHash differs)`,
        });
      }
      if (!this.keys.has(seal.keyId)) {
        findings.push({
          kind: 'seal_unknown_key',
          store,
          seq: seal.seq,
          detail: `seal ${seal.seq} is signed with key ${seal.keyId}, which is not among the verification keys`,
        });
      } else if (!this.keys.verify(seal.keyId, canonicalSeal(seal), seal.signature)) {
        findings.push({
          kind: 'seal_signature',
          store,
          seq: seal.seq,
          detail: `seal ${seal.seq}: the signature does not match its content (the seal was altered)`,
        });
      }
      if (seal.storedSealHash !== hash) {
        findings.push({ kind: 'seal_modified', store, seq: seal.seq, detail: `seal ${seal.seq}: its stored seal_hash does not match its content` });
      }
      previousHash = hash;
      expectedSeq = seal.seq + 1;
      previous = seal;
    }

    // ------------------------------------------------------------------ which seals to compare
    const cutoff = canonicalInstant(yearsBefore(now, RETENTION_YEARS[store]));
    const anchorAfter = shiftInstant(cutoff, CLOCK_TOLERANCE_MS);
    const from = options.from ? canonicalInstant(options.from) : null;
    const to = options.to ? canonicalInstant(options.to) : null;
    const oldestId = (await nextEventId(this.dataSource, store, Number.MIN_SAFE_INTEGER)) ?? Number.POSITIVE_INFINITY;
    const checked: SealState[] = [];
    const skippedRanges: IdRanges[] = [];
    let expiredSeals = 0;
    let before: StoredSeal | undefined;
    for (const seal of seals) {
      const previousSeal = before;
      before = seal;
      // A seal altered around the service may not list ids at all, or list billions: it is named,
      // its events are compared with no seal (a break of the chain lists them), and nothing it
      // claims is expanded.
      const ranges = parsedRangesOrUndefined(seal.ids);
      if (!ranges || rangesCount(ranges) !== seal.count || seal.count > MAX_SEAL_EVENTS || !parsedRangesOrUndefined(seal.pending)) {
        const finding: Finding = {
          kind: 'seal_malformed',
          store,
          seq: seal.seq,
          detail: `seal ${seal.seq}: its ids are not ranges of its ${seal.count} events, or its pending ids are no ranges; its events are compared with no seal`,
        };
        findings.push(finding);
        const afterPending = parsedRangesOrUndefined(previousSeal?.pending ?? '') ?? [];
        gaps.push({ afterUpTo: previousSeal?.upTo ?? 0, afterPending, upTo: seal.upTo, finding, orphans: [] });
        continue;
      }
      const outside = (from !== null && seal.lastOccurredAt < from) || (to !== null && seal.firstOccurredAt > to);
      if (outside) {
        skippedRanges.push(ranges);
        continue;
      }
      // Retention deletes only once a year: the events of a seal past the cutoff stay for up to a
      // year and are served meanwhile, so each one still there is compared like any other. One
      // whose ids all lie below the oldest stored event has none left: not listed, as the seals
      // of years past accumulate.
      const expired = seal.lastOccurredAt < cutoff;
      if (expired) expiredSeals++;
      if (expired && seal.upTo < oldestId) {
        skippedRanges.push(ranges);
        continue;
      }
      checked.push({
        seal,
        expired,
        // Only a seal whose events all came after what the seal before it covered (late ones aside)
        // may have lost its oldest to retention: an event older than that, written after that seal
        // was cut, was backdated, and must not make the events sealed with it deletable.
        partlyExpired:
          !expired &&
          seal.firstOccurredAt < cutoff &&
          (previousSeal === undefined || seal.firstOccurredAt >= shiftInstant(previousSeal.lastOccurredAt, -CLOCK_TOLERANCE_MS)),
        remaining: seal.count,
        digest: new SealDigest(),
        incomplete: false,
        rowFindings: 0,
      });
    }

    // every covered id with its seal and sealed tag, in id order (late ids make seals interleave)
    let total = 0;
    const perSeal: Array<{ ids: number[]; tags: string[] }> = checked.map(({ seal }) => {
      const ids = [...idsOf(parseRanges(seal.ids))];
      const tags = decodeRowTags(seal.rowTags);
      if (ids.length !== seal.count || tags.length !== seal.count) {
        findings.push({
          kind: 'seal_malformed',
          store,
          seq: seal.seq,
          detail: `seal ${seal.seq}: count ${seal.count}, ${ids.length} ids, ${tags.length} row tags`,
        });
      }
      total += ids.length;
      return { ids, tags };
    });
    const coveredIds = new Float64Array(total);
    const coveredSeal = new Int32Array(total);
    const coveredTags: string[] = new Array<string>(total);
    let k = 0;
    perSeal.forEach(({ ids, tags }, s) => {
      ids.forEach((id, i) => {
        coveredIds[k] = id;
        coveredSeal[k] = s;
        coveredTags[k] = tags[i] ?? '';
        k++;
      });
    });
    const order = Array.from({ length: total }, (_v, i) => i);
    let sorted = true;
    for (let i = 1; i < total && sorted; i++) sorted = coveredIds[i - 1]! < coveredIds[i]!;
    if (!sorted) order.sort((a, b) => coveredIds[a]! - coveredIds[b]!);

    // ------------------------------------------------------------------ the rows, in id order
    const newestPending = parsedRangesOrUndefined(newest?.pending ?? '') ?? [];
    const byId = new Map<number, Finding>();
    const mismatched: Array<{ id: number; tag: string; seal: number }> = [];
    const missing: Array<{ id: number; seal: number }> = [];
    // Retention drops whole old months, the oldest events of a seal first: in a seal that reaches
    // past the cutoff, only ids before its first surviving one may be gone by retention. Any other
    // missing id is a deletion (a backdated forged event must not excuse the ones sealed with it).
    const retentionCandidates: Array<{ id: number; seal: number }> = [];
    const firstSurviving = new Map<number, number>();
    const isSkipped = (id: number) => skippedRanges.some((r) => rangesContain(r, id));
    const duplicates: Finding[] = [];
    // an event of a removed seal is covered by no seal: not proof that it was inserted, but no
    // longer verifiable either; the break of the chain names it
    const orphanOf = (id: number) => gaps.find((g) => id <= g.upTo && (id > g.afterUpTo || rangesContain(g.afterPending, id)));
    let gap: ChainGap | undefined;
    let events = 0;
    let unsealed = 0;
    let p = 0;
    const missingUpTo = (id: number) => {
      for (; p < total && coveredIds[order[p]!]! < id; p++) {
        const at = order[p]!;
        const state = checked[coveredSeal[at]!]!;
        state.incomplete = true;
        if (!state.expired) (state.partlyExpired ? retentionCandidates : missing).push({ id: coveredIds[at]!, seal: coveredSeal[at]! });
      }
    };

    const [top]: Array<{ m: string | number | null }> = await this.dataSource.query(`SELECT MAX(id) AS m FROM ${store}`);
    const maxId = Number(top?.m ?? 0);
    const firstChecked = total ? coveredIds[order[0]!]! - 1 : 0;
    const scanFrom = from || to ? firstChecked : 0;
    const scanTo = from || to ? (total ? coveredIds[order[total - 1]!]! : 0) : maxId;
    const windowAfter = (after: number): Promise<EventRow[]> | null => {
      if (after >= scanTo) return null;
      const { sql, parameters } = this.dialect.eventRows(store, { afterId: after, upToId: Math.min(after + ID_WINDOW, scanTo) }, 'full');
      return this.dataSource.query(sql, parameters);
    };
    // the next window is read while this one is hashed: the database and Node work at once
    let after = scanFrom;
    let next = windowAfter(after);
    while (next) {
      const rows = await next;
      after += ID_WINDOW;
      if (!rows.length) {
        // ids nobody wrote (nextEventId): on to the next stored one
        after = Math.max(after, ((await nextEventId(this.dataSource, store, after)) ?? scanTo + 1) - 1);
      }
      next = windowAfter(after);
      for (let i = 0; i < rows.length;) {
        const id = Number(rows[i]!.id);
        let end = i + 1;
        while (end < rows.length && Number(rows[end]!.id) === id) end++;
        events += end - i;
        missingUpTo(id);
        const covered = p < total && coveredIds[order[p]!]! === id;
        // The sequence hands out each id once, so of several rows with one id (the key is
        // (occurred_at, id)) all but one were inserted: the one that matches the sealed tag is the
        // genuine event, or the first when none does or the id is not sealed.
        let row = rows[i]!;
        let recomputed = recomputeRowHash(store, row);
        if (end - i > 1) {
          const group = rows.slice(i, end).map((r) => ({ row: r, hash: recomputeRowHash(store, r) }));
          const genuine = covered
            ? Math.max(
                0,
                group.findIndex((g) => rowTag(g.hash ?? MISSING_ROW_HASH) === coveredTags[order[p]!]),
              )
            : 0;
          ({ row, hash: recomputed } = group[genuine]!);
          group.forEach((g, n) => {
            if (n === genuine) return;
            duplicates.push({
              kind: 'inserted',
              store,
              id,
              detail: `event ${id} occurs ${group.length} times: the row with occurredAt ${String(g.row.occurred_at)} was inserted (the store's sequence hands out each id once)`,
            });
          });
        }
        i = end;
        const stored = row.row_hash === null ? null : row.row_hash.trim();
        // an event newer than the newest seal is judged once a seal covers it (with the hash it has then)
        const sealedHistory = covered || (newest !== null && id <= newest.upTo && !rangesContain(newestPending, id) && !isSkipped(id));
        if (sealedHistory && stored === null) {
          // sealed with a hash, it lost it afterwards: a change, not a row the service never wrote
          const hashRemoved = covered && coveredTags[order[p]!] !== rowTag(MISSING_ROW_HASH);
          byId.set(
            id,
            hashRemoved
              ? { kind: 'modified', store, id, detail: `event ${id}: its row_hash was removed after it was sealed` }
              : { kind: 'unhashed', store, id, detail: `event ${id} has no row_hash: it was not written by the service` },
          );
        } else if (sealedHistory && recomputed !== stored)
          byId.set(id, { kind: 'modified', store, id, detail: `event ${id}: its fields no longer match its row_hash` });

        if (covered) {
          const at = order[p++]!;
          const s = coveredSeal[at]!;
          const state = checked[s]!;
          // the first survivor written clearly after the cutoff: ids follow the order of writing only
          // within the writers' clock skew, so a survivor right at the cutoff proves nothing about
          // the ids after it
          if (state.partlyExpired && !firstSurviving.has(s) && readableInstant(row.occurred_at) >= anchorAfter) firstSurviving.set(s, id);
          const hash = recomputed ?? MISSING_ROW_HASH;
          state.digest.add(id, hash);
          state.remaining--;
          if (rowTag(hash) !== coveredTags[at]) mismatched.push({ id, tag: rowTag(hash), seal: s });
        } else if (sealedHistory && (gap = orphanOf(id))) {
          gap.orphans.push(id);
        } else if (sealedHistory) {
          byId.set(id, {
            kind: 'inserted',
            store,
            id,
            detail: `event ${id} is covered by no seal although seal ${newest!.seq} covers every id up to ${newest!.upTo}`,
          });
        } else if (!isSkipped(id)) {
          unsealed++;
        }
      }
    }
    missingUpTo(Number.POSITIVE_INFINITY);
    // A seal that reaches past the cutoff keeps at least its newest event, sealed at its
    // lastOccurredAt, within the retention: when none of its events is left, that one was deleted
    // (ids follow the order of writing). Which of the others were older than the cutoff the seal
    // does not say, so they are not named.
    const newestGone = new Map<number, { id: number; seal: number }>();
    for (const m of retentionCandidates) {
      const first = firstSurviving.get(m.seal);
      if (first !== undefined) {
        if (m.id > first) missing.push(m);
      } else if ((newestGone.get(m.seal)?.id ?? Number.NEGATIVE_INFINITY) < m.id) {
        newestGone.set(m.seal, m);
      }
    }
    // a seal whose newest event is about to expire too may have lost it to retention
    for (const m of newestGone.values()) if (checked[m.seal]!.seal.lastOccurredAt >= anchorAfter) missing.push(m);

    // Ids the store's sequence never handed out — zero and below, and above its high-water mark
    // read after the scan (every id the scan saw was drawn before it) — are written by no service:
    // no seal will ever cover them, and the scan of ids from 1 never reads the first kind.
    if (!from && !to) {
      const highWater = await this.dialect.eventIdHighWater(this.dataSource, store);
      const forged: Array<{ id: string | number }> = await this.dataSource.query(
        `SELECT id FROM ${store} WHERE id <= 0 OR (id > ${Math.trunc(highWater)} AND id <= ${Math.trunc(maxId)})`,
      );
      for (const row of forged) {
        const id = Number(row.id);
        byId.set(id, { kind: 'inserted', store, id, detail: `event ${id} has an id the store's sequence never handed out: no service wrote it` });
      }
    }

    // ------------------------------------------------------------------ name each difference
    const sealedTag = new Map<number, { tag: string; seal: number }>();
    for (const m of mismatched) sealedTag.set(m.id, { tag: coveredTags[order.find((i) => coveredIds[i] === m.id)!]!, seal: m.seal });
    for (const m of missing) sealedTag.set(m.id, { tag: coveredTags[order.find((i) => coveredIds[i] === m.id)!]!, seal: m.seal });
    const byTag = new Map<string, number>();
    for (const [id, { tag }] of sealedTag) byTag.set(tag, id);
    for (const m of mismatched) {
      const seq = checked[m.seal]!.seal.seq;
      checked[m.seal]!.rowFindings++;
      const origin = byTag.get(m.tag);
      if (origin !== undefined && origin !== m.id) {
        byId.set(m.id, {
          kind: 'reordered',
          store,
          id: m.id,
          seq,
          detail: `event ${m.id} holds the content seal ${seq} sealed for event ${origin} (events re-ordered)`,
        });
      } else if (byId.get(m.id)?.kind !== 'modified' && byId.get(m.id)?.kind !== 'unhashed') {
        // a row without row_hash stays UNHASHED: "rewritten to match" would say it has one
        byId.set(m.id, {
          kind: 'modified',
          store,
          id: m.id,
          seq,
          detail: `event ${m.id} differs from what seal ${seq} sealed (its row_hash was rewritten to match)`,
        });
      } else {
        byId.get(m.id)!.seq = seq;
      }
    }
    for (const m of missing) {
      const seq = checked[m.seal]!.seal.seq;
      checked[m.seal]!.rowFindings++;
      byId.set(m.id, { kind: 'deleted', store, id: m.id, seq, detail: `event ${m.id}, sealed by seal ${seq}, is missing` });
    }
    for (const gap of gaps) {
      if (gap.orphans.length)
        gap.finding.detail += `; events ${formatRanges(rangesFromSortedIds(gap.orphans))} (${gap.orphans.length}) are covered by no remaining seal and can no longer be verified`;
    }
    findings.push(...[...byId.values(), ...duplicates].sort((a, b) => a.id! - b.id!));

    for (const state of checked) {
      if (state.incomplete || state.remaining !== 0 || state.rowFindings) continue;
      if (state.digest.digest().digest !== state.seal.digest) {
        findings.push({
          kind: 'seal_digest',
          store,
          seq: state.seal.seq,
          detail: `seal ${state.seal.seq}: the digest of events ${state.seal.ids} does not match`,
        });
      }
    }

    return {
      store,
      seals: seals.length,
      checkedSeals: checked.length,
      expiredSeals,
      events,
      unsealed,
      newestSeal: newest
        ? { seq: newest.seq, sealHash: newest.storedSealHash, sealedAt: newest.sealedAt, lastId: newest.lastId, upTo: newest.upTo }
        : null,
      findings,
    };
  }
}

/** The report as an auditor reads it: one line per finding, then the verdict. */
export function formatReport(report: VerificationReport): string {
  const lines: string[] = [`Audit trail verification at ${report.verifiedAt}`];
  for (const s of report.stores) {
    lines.push('', `${s.store}:`);
    lines.push(
      `  seals: ${s.seals} (${s.checkedSeals} compared with the events; of them ${s.expiredSeals} past the retention, whose missing events retention removed)`,
      `  events rehashed: ${s.events}; not sealed yet: ${s.unsealed}`,
    );
    if (s.newestSeal) {
      lines.push(
        `  newest seal: #${s.newestSeal.seq} sealed at ${s.newestSeal.sealedAt}, ids up to ${s.newestSeal.upTo}, seal hash ${s.newestSeal.sealHash}`,
      );
    } else {
      lines.push('  newest seal: none yet');
    }
    if (!s.findings.length) lines.push('  intact');
    for (const f of s.findings) lines.push(`  ${f.kind.toUpperCase().padEnd(16)} ${f.detail}`);
  }
  lines.push(
    '',
    report.intact
      ? 'RESULT: intact'
      : `RESULT: NOT INTACT (${plural(
          report.stores.reduce((n, s) => n + s.findings.length, 0),
          'finding',
        )})`,
  );
  return lines.join('\n');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
