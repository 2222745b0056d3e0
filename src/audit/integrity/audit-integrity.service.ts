import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Clock } from '../../common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import type { EventStore } from '../../database/dialects/sql-dialect.js';
import { AuditSealsRepository, type VerificationRecord } from './audit-seals.repository.js';
import { AuditSigningKeys, type AuditPublicJwk } from './audit-signing-keys.js';
import { AuditVerifier, type VerificationReport, type VerifyOptions } from './audit-verification.service.js';

export interface NewestSeal {
  seq: number;
  firstId: number;
  lastId: number;
  upTo: number;
  count: number;
  sealedAt: string;
  keyId: string;
  sealHash: string;
}

export interface IntegrityStatus {
  stores: Record<EventStore, { newestSeal: NewestSeal | null }>;
  lastVerification: VerificationRecord | null;
}

/** The service-side view of the tamper evidence: verification with the configured keys, the status for auditors, the public keys. */
@Injectable()
export class AuditIntegrityService {
  private readonly verifier: AuditVerifier;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SQL_DIALECT) dialect: SqlDialect,
    private readonly seals: AuditSealsRepository,
    private readonly keys: AuditSigningKeys,
    private readonly clock: Clock,
  ) {
    this.verifier = new AuditVerifier(dataSource, dialect, seals, keys.verifyKeys, () => clock.now());
  }

  verify(options: VerifyOptions = {}): Promise<VerificationReport> {
    return this.verifier.verify(options);
  }

  /** Keeps the outcome of a scheduled verification for GET /api/v1/audit/integrity. */
  async record(report: VerificationReport): Promise<void> {
    const findings = report.stores.reduce((n, s) => n + s.findings.length, 0);
    await this.seals.recordVerification(this.dataSource, this.clock.now(), report.intact, findings, summarize(report));
  }

  async status(): Promise<IntegrityStatus> {
    const newest = async (store: EventStore): Promise<NewestSeal | null> => {
      const s = await this.seals.newest(this.dataSource, store);
      return s
        ? {
            seq: s.seq,
            firstId: s.firstId,
            lastId: s.lastId,
            upTo: s.upTo,
            count: s.count,
            sealedAt: s.sealedAt,
            keyId: s.keyId,
            sealHash: s.storedSealHash,
          }
        : null;
    };
    return {
      stores: { audit_events: { newestSeal: await newest('audit_events') }, security_events: { newestSeal: await newest('security_events') } },
      lastVerification: await this.seals.latestVerification(this.dataSource),
    };
  }

  publicKeys(): { keys: AuditPublicJwk[]; current: string } {
    return { keys: this.keys.verifyKeys.jwks(), current: this.keys.keyId };
  }
}

/** At most this many findings are kept per store in a verification record and an alert (the CLI lists all). */
const LISTED_FINDINGS = 50;

/** A verification report without its long lists: what an alert and the status carry. */
export function summarize(report: VerificationReport) {
  return {
    intact: report.intact,
    verifiedAt: report.verifiedAt,
    stores: report.stores.map((s) => ({
      store: s.store,
      seals: s.seals,
      checkedSeals: s.checkedSeals,
      events: s.events,
      unsealed: s.unsealed,
      newestSeal: s.newestSeal,
      findings: s.findings.length,
      listed: s.findings.slice(0, LISTED_FINDINGS).map((f) => ({ kind: f.kind, id: f.id, seq: f.seq, detail: f.detail })),
    })),
  };
}
