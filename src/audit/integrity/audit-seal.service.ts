import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventRow, EventStore } from '../../database/dialects/sql-dialect.js';
import { type JobResult, type JobRunOptions, MaintenanceJobRunner } from '../maintenance/maintenance-job.runner.js';
import { AuditSealsRepository, type StoredSeal } from './audit-seals.repository.js';
import { AuditSigningKeys } from './audit-signing-keys.js';
import {
  canonicalInstant,
  canonicalInstantFromText,
  canonicalSeal,
  formatRanges,
  idsOf,
  MAX_PENDING_IDS,
  MISSING_ROW_HASH,
  parseRanges,
  rangesFromSortedIds,
  type Seal,
  type SealBody,
  SealDigest,
  sealHash,
} from './canonical.js';
import { ID_WINDOW, nextEventId } from './event-rows.js';

export const AUDIT_SEAL_OPTIONS = Symbol('AUDIT_SEAL_OPTIONS');

export interface AuditSealOptions {
  /** how long a run waits for the transactions writing events when it starts (PostgreSQL) */
  settleTimeoutMs: number;
  /** the most events one seal covers; a run writes as many seals as it needs */
  maxEventsPerSeal: number;
}

const UNREADABLE_INSTANT = '0001-01-01T00:00:00.000000Z';

export const DEFAULT_AUDIT_SEAL_OPTIONS: AuditSealOptions = { settleTimeoutMs: 5000, maxEventsPerSeal: 50_000 };

export interface StoreSealOutcome {
  seals: number;
  /** events covered by this run */
  covered: number;
  /** of which ids below the previous seal's `upTo` whose transaction committed after that seal */
  late: number;
  /** ids left pending for a later run */
  pending: number;
  upTo: number;
  newestSealHash: string | null;
}

interface SealedRow {
  id: number;
  occurredAt: string;
  hash: string;
}

/**
 * The `audit-seal` job: appends to audit_seals, per store, signed seals covering every event
 * committed since the previous seal. It only reads the stores (never locks them), so inserts are
 * never serialized by it. Why no committed event is skipped is written down in
 * docs/operations-audit.md ("Why a late commit is never lost").
 */
@Injectable()
export class AuditSealService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
    private readonly runner: MaintenanceJobRunner,
    private readonly keys: AuditSigningKeys,
    private readonly seals: AuditSealsRepository,
    private readonly clock: Clock,
    @Inject(AUDIT_SEAL_OPTIONS) private readonly options: AuditSealOptions,
  ) {}

  run(options: JobRunOptions = {}): Promise<JobResult> {
    return this.runner.run(
      'audit-seal',
      async () => ({
        details: { audit_events: await this.sealStore('audit_events'), security_events: await this.sealStore('security_events') },
      }),
      options,
    );
  }

  /** Seals one store now (the job holds the job lock around both stores). */
  async sealStore(store: EventStore): Promise<StoreSealOutcome> {
    const previous = await this.seals.newest(this.dataSource, store);
    if (previous) this.assertGenuine(previous);
    const fromId = previous?.upTo ?? 0;
    const previouslyPending = [...idsOf(parseRanges(previous?.pending ?? ''))];
    // The high-water mark first, then the wait: every id at or below it was drawn by a transaction
    // that is already writing, so once those have ended every such id is final.
    const highWater = Math.max(await this.dialect.eventIdHighWater(this.dataSource, store), fromId);
    const settled = await this.dialect.awaitEventWriters(this.dataSource, store, this.options.settleTimeoutMs);

    const late = previouslyPending.length ? await this.read(store, { ids: previouslyPending }) : [];
    const fresh: SealedRow[] = [];
    for (let after = fromId; after < highWater;) {
      const upToId = Math.min(after + ID_WINDOW, highWater);
      const rows = await this.read(store, { afterId: after, upToId });
      fresh.push(...rows);
      after = rows.length ? upToId : Math.max(upToId, ((await nextEventId(this.dataSource, store, upToId)) ?? highWater + 1) - 1);
    }

    // ids at or below the high-water mark that are not visible: rolled back, or still uncommitted
    const lateIds = new Set(late.map((r) => r.id));
    const stillMissing = previouslyPending.filter((id) => !lateIds.has(id));
    let pending: number[] = [];
    if (!settled) {
      const holeCount = highWater - fromId - fresh.length;
      if (holeCount > MAX_PENDING_IDS) {
        throw new Error(
          `${store}: ${holeCount} ids between ${fromId} and ${highWater} were drawn but are not visible, more than the ${MAX_PENDING_IDS} a seal run lists as pending; ` +
            "the store's sequence was moved ahead: check it, and the trail (audit:verify)",
        );
      }
      const holes: number[] = [];
      let expect = fromId + 1;
      for (const r of fresh) {
        for (; expect < r.id; expect++) holes.push(expect);
        expect = r.id + 1;
      }
      for (; expect <= highWater; expect++) holes.push(expect);
      // not proven final: ids missing for the second time are dropped only when the engine
      // confirms nothing is written under them (SQL Server); new holes wait for the next run
      const gone = new Set(await this.dialect.confirmAbsent(this.dataSource, store, stillMissing));
      pending = [...stillMissing.filter((id) => !gone.has(id)), ...holes].sort((a, b) => a - b);
    }

    const covered = [...late, ...fresh];
    if (!covered.length) {
      return { seals: 0, covered: 0, late: 0, pending: pending.length, upTo: fromId, newestSealHash: previous?.storedSealHash ?? null };
    }

    let seq = previous?.seq ?? 0;
    let previousHash = previous?.storedSealHash ?? null;
    let written = 0;
    const chunks = sealChunks(covered, lateIds, this.options.maxEventsPerSeal);
    for (let c = 0, start = 0; c < chunks.length; start += chunks[c]!.length, c++) {
      const chunk = chunks[c]!;
      const isLast = c === chunks.length - 1;
      const chunkMax = chunk[chunk.length - 1]!.id;
      const upTo = isLast ? Math.max(highWater, fromId, chunkMax) : Math.max(fromId, chunkMax);
      // ids at or below upTo that this seal does not cover yet: still pending, or covered by a later chunk
      const later = covered.slice(start + chunk.length).map((r) => r.id);
      const open = [...pending, ...later].filter((id) => id <= upTo).sort((a, b) => a - b);
      const digest = new SealDigest();
      let first = chunk[0]!.occurredAt;
      let last = first;
      for (const r of chunk) {
        digest.add(r.id, r.hash);
        if (r.occurredAt < first) first = r.occurredAt;
        if (r.occurredAt > last) last = r.occurredAt;
      }
      const sorted = chunk.map((r) => r.id);
      const body: SealBody = {
        store,
        seq: ++seq,
        firstId: sorted[0]!,
        lastId: chunkMax,
        upTo,
        ids: formatRanges(rangesFromSortedIds(sorted)),
        pending: formatRanges(rangesFromSortedIds(open)),
        count: chunk.length,
        ...digest.digest(),
        firstOccurredAt: first,
        lastOccurredAt: last,
        previousSealHash: previousHash,
        sealedAt: canonicalInstant(this.clock.now()),
        keyId: this.keys.keyId,
      };
      const seal: Seal = { ...body, signature: this.keys.sign(canonicalSeal(body)) };
      const hash = sealHash(body);
      await this.seals.append(this.dataSource, seal, hash);
      previousHash = hash;
      written++;
    }
    return {
      seals: written,
      covered: covered.length,
      late: late.length,
      pending: pending.length,
      upTo: Math.max(highWater, fromId),
      newestSealHash: previousHash,
    };
  }

  /**
   * The newest seal, which the next one chains to and whose pending ids it reads, as the job wrote
   * it: signed by one of the verification keys, its stored hash that of its content. A seal altered
   * in the database stops the sealing (the run fails, the integrity check names the seal) rather
   * than be built upon: its pending list, say, could name billions of ids.
   */
  private assertGenuine(seal: StoredSeal): void {
    const keys = this.keys.verifyKeys;
    if (keys.has(seal.keyId) && keys.verify(seal.keyId, canonicalSeal(seal), seal.signature) && sealHash(seal) === seal.storedSealHash) return;
    throw new Error(
      `${seal.store}: the newest seal (#${seal.seq}) does not verify against the seal keys; sealing stops until it is checked (audit:verify)` +
        (keys.has(seal.keyId) ? '' : `: it is signed with key ${seal.keyId}, not among AUDIT_VERIFY_KEYS`),
    );
  }

  private async read(store: EventStore, selection: { ids: number[] } | { afterId: number; upToId: number }): Promise<SealedRow[]> {
    const { sql, parameters } = this.dialect.eventRows(store, selection, 'seal');
    const rows: EventRow[] = await this.dataSource.query(sql, parameters);
    return rows.map((r) => {
      let occurredAt: string;
      try {
        occurredAt = canonicalInstantFromText(r.occurred_at);
      } catch {
        // a time no service writes (a row moved before year 1): sealed as a row that matches no
        // row, in a seal of its own at the oldest instant, for the verifier to name it
        return { id: Number(r.id), occurredAt: UNREADABLE_INSTANT, hash: MISSING_ROW_HASH };
      }
      // a row written around the service has no hash: sealed as one that matches no row
      return { id: Number(r.id), occurredAt, hash: r.row_hash ? r.row_hash.trim() : MISSING_ROW_HASH };
    });
  }
}

/**
 * The events of one run, cut into seals: at most `max` each, and a new seal at each UTC day of
 * `occurredAt` (the late events, first, go with the first day). The verifier excuses a missing
 * event only in the seal that reaches past the retention cutoff, before its first survivor: one
 * day at most, where a backlog sealed at once (the first run after an upgrade, or after an outage)
 * would otherwise put weeks of events in one seal. An event backdated among fresh ones gets a seal
 * of its own, older than the one before it, which the verifier then never takes to reach past the
 * cutoff.
 */
export function sealChunks<R extends { id: number; occurredAt: string }>(covered: readonly R[], lateIds: ReadonlySet<number>, max: number): R[][] {
  const chunks: R[][] = [];
  let current: R[] = [];
  let day: string | undefined;
  for (const r of covered) {
    const late = lateIds.has(r.id);
    const rowDay = r.occurredAt.slice(0, 10);
    if (current.length >= max || (!late && day !== undefined && rowDay !== day)) {
      chunks.push(current);
      current = [];
      day = undefined;
    }
    current.push(r);
    if (!late && day === undefined) day = rowDay;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
