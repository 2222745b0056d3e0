import type { EventStore, Queryable, SqlDialect } from '../../database/dialects/sql-dialect.js';
import { PreparedStatement } from '../../database/prepared-statement.js';
import { canonicalInstant, type Seal } from './canonical.js';

interface SealRow {
  store: EventStore;
  seq: string | number;
  first_id: string | number;
  last_id: string | number;
  up_to: string | number;
  ids: string;
  pending: string;
  count: number;
  digest: string;
  row_tags: string;
  events_from: string;
  events_to: string;
  previous_seal_hash: string | null;
  seal_hash: string;
  sealed_at: Date | string;
  key_id: string;
  signature: string;
}

/** A seal as stored, with the seal hash written next to it (the verification recomputes it). */
export interface StoredSeal extends Seal {
  storedSealHash: string;
}

function toSeal(r: SealRow): StoredSeal {
  return {
    store: r.store,
    seq: Number(r.seq),
    firstId: Number(r.first_id),
    lastId: Number(r.last_id),
    upTo: Number(r.up_to),
    ids: r.ids,
    pending: r.pending,
    count: Number(r.count),
    digest: r.digest.trim(),
    rowTags: r.row_tags,
    firstOccurredAt: r.events_from,
    lastOccurredAt: r.events_to,
    previousSealHash: r.previous_seal_hash === null ? null : r.previous_seal_hash.trim(),
    sealedAt: canonicalInstant(new Date(r.sealed_at)),
    keyId: r.key_id,
    signature: r.signature,
    storedSealHash: r.seal_hash.trim(),
  };
}

const COLUMNS = `store, seq, first_id, last_id, up_to, ids, pending, count, digest, row_tags, events_from, events_to,
  previous_seal_hash, seal_hash, sealed_at, key_id, signature`;

/** The last scheduled verification, as GET /api/v1/audit/integrity shows it. */
export interface VerificationRecord {
  verifiedAt: string;
  intact: boolean;
  findings: number;
  summary: unknown;
}

/** audit_seals and audit_verifications: append-only, written by the seal job and the integrity check. */
export class AuditSealsRepository {
  private readonly newestOf = new PreparedStatement<SealRow>(
    `SELECT ${COLUMNS} FROM audit_seals WHERE store = :store AND seq = (SELECT MAX(seq) FROM audit_seals WHERE store = :store)`,
  );
  private readonly allOf = new PreparedStatement<SealRow>(`SELECT ${COLUMNS} FROM audit_seals WHERE store = :store ORDER BY seq`);
  private readonly insertSeal: PreparedStatement;
  private readonly insertVerification: PreparedStatement;
  private readonly lastVerification = new PreparedStatement<{ verified_at: Date; intact: boolean | number; findings: number; summary: string }>(
    'SELECT verified_at, intact, findings, summary FROM audit_verifications WHERE id = (SELECT MAX(id) FROM audit_verifications)',
  );

  constructor(dialect: SqlDialect) {
    this.insertSeal = new PreparedStatement(
      dialect.insertStatement(
        'audit_seals',
        COLUMNS.split(',').map((c) => c.trim()),
      ),
    );
    this.insertVerification = new PreparedStatement(dialect.insertStatement('audit_verifications', ['verified_at', 'intact', 'findings', 'summary']));
  }

  async newest(db: Queryable, store: EventStore): Promise<StoredSeal | null> {
    const row = await this.newestOf.one(db, { store });
    return row ? toSeal(row) : null;
  }

  async all(db: Queryable, store: EventStore): Promise<StoredSeal[]> {
    return (await this.allOf.run(db, { store })).map(toSeal);
  }

  async append(db: Queryable, seal: Seal, hash: string): Promise<void> {
    await this.insertSeal.run(db, {
      store: seal.store,
      seq: seal.seq,
      first_id: seal.firstId,
      last_id: seal.lastId,
      up_to: seal.upTo,
      ids: seal.ids,
      pending: seal.pending,
      count: seal.count,
      digest: seal.digest,
      row_tags: seal.rowTags,
      events_from: seal.firstOccurredAt,
      events_to: seal.lastOccurredAt,
      previous_seal_hash: seal.previousSealHash,
      seal_hash: hash,
      sealed_at: new Date(seal.sealedAt),
      key_id: seal.keyId,
      signature: seal.signature,
    });
  }

  async recordVerification(db: Queryable, at: Date, intact: boolean, findings: number, summary: unknown): Promise<void> {
    await this.insertVerification.run(db, { verified_at: at, intact, findings, summary: JSON.stringify(summary) });
  }

  async latestVerification(db: Queryable): Promise<VerificationRecord | null> {
    const row = await this.lastVerification.one(db, {});
    if (!row) return null;
    return {
      verifiedAt: new Date(row.verified_at).toISOString(),
      intact: Boolean(row.intact),
      findings: Number(row.findings),
      summary: JSON.parse(row.summary),
    };
  }
}
