import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryRunner } from 'typeorm';
import { AuditIntegrityService } from '../../src/audit/integrity/audit-integrity.service.js';
import { AuditSealService, type AuditSealOptions } from '../../src/audit/integrity/audit-seal.service.js';
import { AuditSealsRepository } from '../../src/audit/integrity/audit-seals.repository.js';
import { AuditSigningKeys } from '../../src/audit/integrity/audit-signing-keys.js';
import type { Finding, VerificationReport } from '../../src/audit/integrity/audit-verification.service.js';
import { auditVerifyCommand, AuditVerifyUsageError } from '../../src/audit/integrity/audit-verify.command.js';
import { canonicalInstant, rowHash } from '../../src/audit/integrity/canonical.js';
import { IntegrityCheckService } from '../../src/audit/maintenance/integrity-check.service.js';
import { MaintenanceJobRunner } from '../../src/audit/maintenance/maintenance-job.runner.js';
import { RetentionService } from '../../src/audit/maintenance/retention.service.js';
import { yearsBefore } from '../../src/audit/maintenance/storage-policy.js';
import { Clock, FixedClock } from '../../src/common/context/clock.js';
import { SQL_DIALECT, type SqlDialect } from '../../src/database/dialects/index.js';
import { onlyOn, TestApp } from '../support/test-app.js';

/**
 * The tamper evidence of the audit trail, attacked as the database owner would: change, delete,
 * forge and swap sealed events and see the verification (the service and the audit:verify
 * command) name each by id; restore them and see it pass. And the seal job against transactions
 * that commit after a seal was cut.
 */
describe('tamper-evident audit trail', () => {
  let t: TestApp;
  let token: string;
  let dialect: SqlDialect;
  let n = 0;

  beforeAll(async () => {
    t = await TestApp.create({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'audit-seal-')) } });
    token = await t.adminToken();
    dialect = t.app.get<SqlDialect>(SQL_DIALECT);
  });
  afterAll(() => t.close());

  const createMedio = async () => {
    const res = await t.post('/api/v1/admin/medios', { codigo: `SEAL_${++n}`, nombre: `Medio ${n}` }, { token });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const eventIdOf = async (medioId: number): Promise<number> =>
    Number((await t.query(`SELECT id FROM audit_events WHERE action = 'medio.create' AND target_id = $1`, [String(medioId)]))[0].id);
  /** A seal service with a short wait for open transactions (the default waits seconds). */
  const sealer = (options: Partial<AuditSealOptions> = {}) => quickSealer(t, options);
  const seal = async () => {
    const result = await sealer().run();
    expect(result.status).toBe('ok');
    return result;
  };
  const verify = (): Promise<VerificationReport> => t.app.get(AuditIntegrityService).verify();
  const findings = (r: VerificationReport): Array<Pick<Finding, 'kind' | 'id'>> =>
    r.stores.flatMap((s) => s.findings.map((f) => ({ kind: f.kind, id: f.id })));
  /** Runs the audit:verify command on this database; its exit code and report. */
  const cli = async (...args: string[]) => {
    let out = '';
    const code = await auditVerifyCommand(
      args,
      t.config,
      { url: t.config.databaseUrl!, engine: t.engine, dialect, embedded: false, stop: async () => {} },
      (s) => {
        out += s;
      },
    );
    return { code, out };
  };
  const rowOf = async (id: number) => (await t.query(`SELECT * FROM audit_events WHERE id = $1`, [id]))[0];

  describe('row hashes', () => {
    it('writes every audit and security event with the hash of its canonical form', async () => {
      const medio = await createMedio();
      const id = await eventIdOf(medio);
      const { sql, parameters } = dialect.eventRows('audit_events', { ids: [id] }, 'full');
      const [row] = await t.db.query(sql, parameters);
      expect(row.row_hash).toMatch(/^[0-9a-f]{64}$/);
      const missing = await t.query(`SELECT COUNT(*) AS n FROM security_events WHERE row_hash IS NULL`);
      expect(Number(missing[0].n)).toBe(0);
      const report = await verify(); // rehashes every row: none differs from its row_hash
      expect(findings(report)).toEqual([]);
    });
  });

  describe('sealing and verification', () => {
    let a: number;
    let b: number;
    let c: number;
    let hole: number;

    beforeAll(async () => {
      a = await eventIdOf(await createMedio());
      // a rolled-back insert leaves a hole in the ids: not a finding
      const qr = t.db.createQueryRunner();
      await qr.connect();
      await qr.startTransaction();
      await insertHashedEvent(qr, 'test.rolled_back');
      await qr.rollbackTransaction();
      await qr.release();
      b = await eventIdOf(await createMedio());
      c = await eventIdOf(await createMedio());
      hole = a + 1;
      expect(b).toBeGreaterThan(hole);
      await seal();
    });

    it('appends one signed seal per store chaining to the previous one, and the untouched trail verifies intact', async () => {
      const seals = await t.app.get(AuditSealsRepository).all(t.db, 'audit_events');
      expect(seals.length).toBeGreaterThanOrEqual(1);
      const last = seals[seals.length - 1]!;
      expect(last.upTo).toBeGreaterThanOrEqual(c);
      expect(last.ids).not.toContain(`${hole}-`);
      const report = await verify();
      expect(report.intact).toBe(true);
      expect(await cli()).toMatchObject({ code: 0 });
    });

    it('names an event whose field was changed, and passes again once it is restored', async () => {
      const before = await rowOf(b);
      await t.query(`UPDATE audit_events SET target_id = 'forged' WHERE id = $1`, [b]);
      expect(findings(await verify())).toEqual([{ kind: 'modified', id: b }]);
      const { code, out } = await cli();
      expect(code).toBe(2);
      expect(out).toContain(`MODIFIED`);
      expect(out).toContain(`event ${b}:`);
      await t.query(`UPDATE audit_events SET target_id = $1 WHERE id = $2`, [before.target_id, b]);
      expect((await verify()).intact).toBe(true);
    });

    onlyOn('postgres', 'SQL Server stores no year before 1')(
      'names an event moved to its own date before Christ, which reads as the same text where the era is not written',
      async () => {
        const [{ t: original }] = await t.query(`SELECT occurred_at::text AS t FROM audit_events WHERE id = $1`, [b]);
        await t.query(`CREATE TABLE audit_events_bc PARTITION OF audit_events FOR VALUES FROM (MINVALUE) TO ('0001-01-01 00:00:00+00')`);
        try {
          await t.query(
            `UPDATE audit_events SET occurred_at = (to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00 BC')::timestamptz WHERE id = $1`,
            [b],
          );
          expect(findings(await verify())).toEqual([{ kind: 'modified', id: b }]);
          // one not sealed yet is sealed as a row that matches no row (the job goes on), and named
          const fresh = await eventIdOf(await createMedio());
          await t.query(
            `UPDATE audit_events SET occurred_at = (to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00 BC')::timestamptz WHERE id = $1`,
            [fresh],
          );
          await seal();
          expect(findings(await verify())).toEqual([
            { kind: 'modified', id: b },
            { kind: 'modified', id: fresh },
          ]);
          await t.query(`UPDATE audit_events SET occurred_at = $1::timestamptz WHERE id = $2`, [original, b]);
          // sealed at year 1, wholly past the retention: its removal is no finding
          await t.query(`DELETE FROM audit_events WHERE id = $1`, [fresh]);
        } finally {
          await t.query(`DROP TABLE audit_events_bc`);
        }
        expect((await verify()).intact).toBe(true);
      },
    );

    it('names a changed event even when its row_hash was recomputed to match the new fields', async () => {
      const before = await rowOf(b);
      const { sql, parameters } = dialect.eventRows('audit_events', { ids: [b] }, 'full');
      const [row] = await t.db.query(sql, parameters);
      const forged = rowHash('audit_events', {
        occurredAt: canonicalInstant(new Date(before.occurred_at)),
        actorUserId: Number(row.actor_user_id),
        actorRoleId: null,
        ip: row.ip,
        userAgent: row.user_agent,
        correlationId: row.correlation_id,
        action: row.action,
        targetType: row.target_type,
        targetId: 'forged',
        metadata: JSON.parse(row.metadata),
      });
      await t.query(`UPDATE audit_events SET target_id = 'forged', row_hash = $1, occurred_at = $2 WHERE id = $3`, [
        forged,
        new Date(before.occurred_at),
        b,
      ]);
      const report = await verify();
      expect(findings(report)).toEqual([{ kind: 'modified', id: b }]);
      expect(report.stores[0]!.findings[0]!.detail).toContain('row_hash was rewritten');
      await t.query(`UPDATE audit_events SET target_id = $1, row_hash = $2, occurred_at = $3 WHERE id = $4`, [
        before.target_id,
        before.row_hash,
        before.occurred_at,
        b,
      ]);
      expect((await verify()).intact).toBe(true);
    });

    it('names a deleted event, and passes again once it is put back', async () => {
      const before = await rowOf(a);
      await t.query(`DELETE FROM audit_events WHERE id = $1`, [a]);
      expect(findings(await verify())).toEqual([{ kind: 'deleted', id: a }]);
      const { code, out } = await cli('--store', 'audit_events');
      expect(code).toBe(2);
      expect(out).toContain(`event ${a}, sealed by seal`);
      await putBack(before);
      expect((await verify()).intact).toBe(true);
    });

    it('names an event forged into the sealed past (an id no seal covers), and passes once it is removed', async () => {
      const medio = await rowOf(a);
      await putBack({ ...medio, id: hole, target_id: 'forged' });
      expect(findings(await verify())).toEqual([{ kind: 'inserted', id: hole }]);
      const { code, out } = await cli();
      expect(code).toBe(2);
      expect(out).toContain(`INSERTED`);
      expect(out).toContain(`event ${hole} is covered by no seal`);
      await t.query(`DELETE FROM audit_events WHERE id = $1`, [hole]);
      expect((await verify()).intact).toBe(true);
    });

    it('names a second row at a sealed id as inserted, not the sealed event as modified, and passes once it is removed', async () => {
      const genuine = await rowOf(b);
      // the key is (occurred_at, id): a row one millisecond apart may share the id
      const at = new Date(new Date(genuine.occurred_at).getTime() + 1);
      await putBack({ ...genuine, occurred_at: at, target_id: 'forged' });
      const report = await verify();
      expect(findings(report)).toEqual([{ kind: 'inserted', id: b }]);
      expect(report.stores[0]!.findings[0]!.detail).toContain(`event ${b} occurs 2 times`);
      expect(report.stores[0]!.findings[0]!.detail).toContain(canonicalInstant(at));
      await t.query(`DELETE FROM audit_events WHERE id = $1 AND target_id = 'forged'`, [b]);
      expect((await verify()).intact).toBe(true);
    });

    it('names events at ids the sequence never handed out (zero and below, and beyond it), and passes once they are removed', async () => {
      const medio = await rowOf(a);
      // far beyond: the verifier jumps over ids nobody wrote instead of reading them window by window
      const beyond = Number((await t.query('SELECT MAX(id) AS m FROM audit_events'))[0].m) + 1_000_000_000_000;
      await putBack({ ...medio, id: -1, target_id: 'forged' });
      await putBack({ ...medio, id: 0, target_id: 'forged' });
      // SQL Server moves its identity past an explicit higher id, so only zero and below are forged there for sure
      const above = t.engine === 'postgres';
      if (above) await putBack({ ...medio, id: beyond, target_id: 'forged' });
      await seal(); // a later seal does not cover them either
      expect(findings(await verify())).toEqual([
        { kind: 'inserted', id: -1 },
        { kind: 'inserted', id: 0 },
        ...(above ? [{ kind: 'inserted', id: beyond }] : []),
      ]);
      const { code, out } = await cli();
      expect(code).toBe(2);
      expect(out).toContain("event -1 has an id the store's sequence never handed out");
      await t.query(`DELETE FROM audit_events WHERE id <= 0 OR id = $1`, [beyond]);
      expect((await verify()).intact).toBe(true);
    });

    it('does not let a backdated event excuse the deletion of the events sealed with it', async () => {
      // an event eleven years old, forged with a correct hash before the next seal: its seal then
      // reaches past the ten-year retention, where missing events may have been dropped by it
      const old = new Date(Date.UTC(new Date().getUTCFullYear() - 11, 0, 15));
      await dialect.ensureMonthlyPartitions(t.db, 'audit_events', old, old);
      const [forged] = await t.query(
        t.engine === 'postgres'
          ? `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, row_hash) VALUES ($1, 1, 'medio.create', 'medio', 'old', $2) RETURNING id`
          : `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, row_hash) OUTPUT INSERTED.id VALUES (@0, 1, 'medio.create', 'medio', 'old', @1)`,
        [
          old,
          rowHash('audit_events', {
            occurredAt: canonicalInstant(old),
            actorUserId: 1,
            actorRoleId: null,
            ip: null,
            userAgent: null,
            correlationId: null,
            action: 'medio.create',
            targetType: 'medio',
            targetId: 'old',
            metadata: null,
          }),
        ],
      );
      const x = await eventIdOf(await createMedio());
      const y = await eventIdOf(await createMedio());
      await seal();
      const rows = [await rowOf(x), await rowOf(y)];
      await t.query(`DELETE FROM audit_events WHERE id IN ($1, $2)`, [x, y]);
      expect(findings(await verify())).toEqual([
        { kind: 'deleted', id: x },
        { kind: 'deleted', id: y },
      ]);
      for (const row of rows) await putBack(row);
      expect((await verify()).intact).toBe(true);
      // the backdated event is sealed on its own (its day), a seal wholly past the retention: its
      // loss is no finding, and it excuses none of the events sealed after it
      const forgedRow = await rowOf(Number(forged.id));
      await t.query(`DELETE FROM audit_events WHERE id IN ($1, $2, $3)`, [Number(forged.id), x, y]);
      expect(findings(await verify())).toEqual([
        { kind: 'deleted', id: x },
        { kind: 'deleted', id: y },
      ]);
      for (const row of [forgedRow, ...rows]) await putBack(row);
      expect((await verify()).intact).toBe(true);
    });

    it('names two swapped events as re-ordered, and passes once they are swapped back', async () => {
      const swap = () => t.query(`UPDATE audit_events SET id = CASE WHEN id = $1 THEN $2 ELSE $1 END WHERE id IN ($1, $2)`, [b, c]);
      await swap();
      expect(findings(await verify())).toEqual([
        { kind: 'reordered', id: b },
        { kind: 'reordered', id: c },
      ]);
      const { out } = await cli();
      expect(out).toContain(`event ${b} holds the content seal`);
      expect(out).toContain(`sealed for event ${c}`);
      await swap();
      expect((await verify()).intact).toBe(true);
    });

    it('names an altered seal and a removed seal as breaks of the seal chain', async () => {
      await seal(); // nothing new: no seal is written
      await createMedio();
      await seal();
      const seals = await t.app.get(AuditSealsRepository).all(t.db, 'audit_events');
      const [first, second] = seals.slice(-2);
      await t.query(`UPDATE audit_seals SET count = count + 1 WHERE store = 'audit_events' AND seq = $1`, [second!.seq]);
      expect((await verify()).stores[0]!.findings.map((f) => f.kind)).toEqual(expect.arrayContaining(['seal_signature', 'seal_modified']));
      await t.query(`UPDATE audit_seals SET count = count - 1 WHERE store = 'audit_events' AND seq = $1`, [second!.seq]);
      expect((await verify()).intact).toBe(true);
      const kept = await t.query(`SELECT * FROM audit_seals WHERE store = 'audit_events' AND seq = $1`, [first!.seq]);
      await t.query(`DELETE FROM audit_seals WHERE store = 'audit_events' AND seq = $1`, [first!.seq]);
      // the removed seal's events are covered by no seal now: the break names them, they are no INSERTED findings
      const [chain, ...others] = (await verify()).stores[0]!.findings;
      expect(others).toEqual([]);
      expect(chain).toMatchObject({ kind: 'seal_chain', seq: second!.seq });
      // (of its events, those an earlier test did not delete)
      expect(chain!.detail).toMatch(
        new RegExp(
          `^seal ${first!.seq} missing before seal ${second!.seq}; events [0-9,-]*${first!.lastId} \\(\\d+\\) are covered by no remaining seal and can no longer be verified$`,
        ),
      );
      const k = kept[0];
      await t.query(
        `INSERT INTO audit_seals (store, seq, first_id, last_id, up_to, ids, pending, count, digest, row_tags, events_from, events_to, previous_seal_hash, seal_hash, sealed_at, key_id, signature)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [
          k.store,
          k.seq,
          k.first_id,
          k.last_id,
          k.up_to,
          k.ids,
          k.pending,
          k.count,
          k.digest,
          k.row_tags,
          k.events_from,
          k.events_to,
          k.previous_seal_hash,
          k.seal_hash,
          k.sealed_at,
          k.key_id,
          k.signature,
        ],
      );
      expect((await verify()).intact).toBe(true);
    });

    it('names a seal altered into ids that are no ranges, or billions of them, as malformed instead of failing, and the seal job refuses to chain to it', async () => {
      await createMedio();
      await seal();
      const [newest] = (await t.app.get(AuditSealsRepository).all(t.db, 'audit_events')).slice(-1);
      const alter = (column: 'ids' | 'pending', value: string) =>
        t.query(`UPDATE audit_seals SET ${column} = $1 WHERE store = 'audit_events' AND seq = $2`, [value, newest!.seq]);
      const kinds = async () => (await verify()).stores[0]!.findings.map((f) => f.kind);

      await alter('ids', `${newest!.firstId}-${newest!.lastId}x`);
      expect(await kinds()).toEqual(expect.arrayContaining(['seal_malformed', 'seal_signature', 'seal_modified']));
      await alter('ids', '1-9000000000000');
      expect(await kinds()).toEqual(expect.arrayContaining(['seal_malformed', 'seal_signature']));
      await alter('ids', newest!.ids);

      // a pending list of billions of ids: the job would list them all and run out of memory
      await alter('pending', `${newest!.upTo + 1}-9999999999`);
      expect(await kinds()).toEqual(expect.arrayContaining(['seal_signature', 'seal_modified']));
      await createMedio();
      const refused = await quickSealer(t).run();
      expect(refused.status).toBe('failed');
      expect(refused.error).toMatch(/the newest seal \(#\d+\) does not verify against the seal keys; sealing stops/);
      expect((await t.app.get(AuditSealsRepository).all(t.db, 'audit_events')).slice(-1)[0]!.seq).toBe(newest!.seq);

      await alter('pending', newest!.pending);
      expect((await quickSealer(t).run()).status).toBe('ok');
      expect((await verify()).intact).toBe(true);
    });

    it('verifies offline with only the public key, and refuses seals whose key it is not given', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'audit-key-'));
      const pem = join(dir, 'audit-public.pem');
      writeFileSync(pem, t.app.get(AuditSigningKeys).publicKey.export({ type: 'spki', format: 'pem' }));
      expect((await cli('--public-key', pem)).code).toBe(0);
      const jwks = join(dir, 'audit-keys.json');
      writeFileSync(jwks, (await t.get('/.well-known/audit-keys.json')).text);
      expect((await cli('--public-key', jwks)).code).toBe(0);
      const other = join(dir, 'other.pem');
      writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
      const { code, out } = await cli('--public-key', other);
      expect(code).toBe(2);
      expect(out).toContain('SEAL_UNKNOWN_KEY');
      // a key file that cannot be read is a wrong command line (exit 64), not a fault
      await expect(cli('--public-key', join(dir, 'missing.pem'))).rejects.toBeInstanceOf(AuditVerifyUsageError);
      // so is a file that holds no Ed25519 public key: never "every seal signed by an unknown key"
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
      for (const [name, text] of [
        ['rsa.pem', rsa],
        ['hello.txt', 'hello\n'],
        ['empty.json', '{"keys":[]}'],
        ['broken.json', '{"keys":['],
      ] as const) {
        writeFileSync(join(dir, name), text);
        await expect(cli('--public-key', join(dir, name))).rejects.toBeInstanceOf(AuditVerifyUsageError);
      }
    });

    it('refuses to verify without --public-key where no key of the service is found, and creates none (exit 64, not false findings)', async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'audit-verify-elsewhere-'));
      const config = { ...t.config, dataDir: elsewhere, auditSeal: { ...t.config.auditSeal, signingKeyPem: undefined, verifyKeysPem: undefined } };
      const run = auditVerifyCommand(
        [],
        config,
        { url: t.config.databaseUrl!, engine: t.engine, dialect, embedded: false, stop: async () => {} },
        () => {},
      );
      await expect(run).rejects.toThrow('no verification key here: pass --public-key');
      expect(readdirSync(elsewhere)).toEqual([]);
    });

    it('refuses a window whose --from is later than its --to, or that holds no sealed event, or a date that does not exist (exit 64) instead of reporting an empty comparison as intact', async () => {
      await expect(cli('--from', '2026-11-25T00:00:00Z', '--to', '2026-11-24T00:00:00Z')).rejects.toThrow('--from must not be later than --to');
      await expect(cli('--from', '2090-01-01T00:00:00Z')).rejects.toThrow('no seal covers events within --from/--to: nothing was compared');
      await expect(cli('--to', '2000-01-01T00:00:00Z')).rejects.toThrow('no seal covers events within --from/--to');
      await expect(cli('--from', '2026-02-30T00:00:00Z')).rejects.toThrow('--from needs an ISO instant');
      await expect(cli('--from', '2026-02-28')).rejects.toThrow('--from needs an ISO instant');
      // a window around the sealed events compares them
      const day = 86_400_000;
      const around = ['--from', new Date(Date.now() - day).toISOString(), '--to', new Date(Date.now() + day).toISOString()];
      expect((await cli(...around)).code).toBe(0);
    });
  });

  describe('transactions that commit after a seal was cut', () => {
    it('seals each late event in a later seal; verification passes before and after, and a rollback is no finding', async () => {
      const open: QueryRunner[] = [];
      const lateIds: number[] = [];
      for (let i = 0; i < 3; i++) {
        const qr = t.db.createQueryRunner();
        await qr.connect();
        await qr.startTransaction();
        lateIds.push(await insertHashedEvent(qr, `test.late_${i}`));
        open.push(qr);
        await createMedio(); // committed events with higher ids, around the open ones
      }
      try {
        const first = await sealer().sealStore('audit_events');
        expect(first.covered).toBeGreaterThanOrEqual(3);
        expect((await verify()).intact).toBe(true);

        // two commit after the seal was cut, one rolls back
        await open[0]!.commitTransaction();
        await open[2]!.commitTransaction();
        await open[1]!.rollbackTransaction();
        // committed, not sealed yet: pending in the newest seal, not a finding
        const between = await verify();
        expect(between.intact).toBe(true);
        expect(between.stores[0]!.unsealed).toBeGreaterThanOrEqual(2);

        const second = await sealer().sealStore('audit_events');
        expect(second.late).toBe(2);
        const seals = await t.app.get(AuditSealsRepository).all(t.db, 'audit_events');
        const newest = seals[seals.length - 1]!;
        expect(newest.ids.split(',')).toEqual(expect.arrayContaining([String(lateIds[0]), String(lateIds[2])]));
        const after = await verify();
        expect(after.intact).toBe(true);
        expect(after.stores[0]!.unsealed).toBe(0);
      } finally {
        for (const qr of open) {
          if (qr.isTransactionActive) await qr.rollbackTransaction();
          await qr.release();
        }
      }
    });

    it('covers in the same seal an event whose transaction commits while the seal waits for it', async () => {
      const qr = t.db.createQueryRunner();
      await qr.connect();
      await qr.startTransaction();
      const id = await insertHashedEvent(qr, 'test.commits_during_seal');
      const run = sealer({ settleTimeoutMs: 10_000 }).sealStore('audit_events');
      await new Promise((r) => setTimeout(r, 100));
      await qr.commitTransaction();
      await qr.release();
      const outcome = await run;
      const seals = await t.app.get(AuditSealsRepository).all(t.db, 'audit_events');
      expect(outcome.pending).toBe(0);
      expect(seals[seals.length - 1]!.ids).toContain(String(id));
      expect((await verify()).intact).toBe(true);
    });

    it('splits a large backlog into several chained seals', async () => {
      for (let i = 0; i < 5; i++) await createMedio();
      const outcome = await sealer({ maxEventsPerSeal: 2 }).sealStore('audit_events');
      expect(outcome.seals).toBeGreaterThanOrEqual(3);
      expect((await verify()).intact).toBe(true);
    });
  });

  describe('operations', () => {
    it("publishes the public keys without a token, the current one first, keyed by the seals' keyId", async () => {
      const res = await t.get('/.well-known/audit-keys.json');
      expect(res.status).toBe(200);
      const keys = t.app.get(AuditSigningKeys);
      expect(res.body.current).toBe(keys.keyId);
      expect(res.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: keys.keyId, alg: 'EdDSA' });
      expect(JSON.stringify(res.body)).not.toContain('"d"');
    });

    it('answers the newest seals and the last verification to auditors, and 403 to others', async () => {
      await seal();
      const check = await t.app.get(IntegrityCheckService).run();
      expect(check.status).toBe('ok');
      const res = await t.get('/api/v1/audit/integrity', { token });
      expect(res.status).toBe(200);
      expect(res.body.stores.audit_events.newestSeal).toMatchObject({ seq: expect.any(Number), sealHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(res.body.lastVerification).toMatchObject({ intact: true, findings: 0 });
      const cajero = await t.createUser('cajero');
      const { accessToken } = await t.login(cajero.username, cajero.password);
      expect((await t.get('/api/v1/audit/integrity', { token: accessToken })).status).toBe(403);
    });

    it('makes the weekly integrity check raise system.integrity_alert on tampering', async () => {
      const id = await eventIdOf(await createMedio());
      await seal();
      const before = await rowOf(id);
      await t.query(`UPDATE audit_events SET action = 'medio.update' WHERE id = $1`, [id]);
      try {
        const check = await t.app.get(IntegrityCheckService).run();
        expect(check.status).toBe('alert');
        const [alert] = (await t.securityEvents('system.integrity_alert')).slice(-1);
        expect(alert.failure_reason).toBe('audit_trail_tampered');
        expect(JSON.stringify(alert.metadata)).toContain(`"id":${id}`);
        const res = await t.get('/api/v1/audit/integrity', { token });
        expect(res.body.lastVerification).toMatchObject({ intact: false, findings: 1 });
      } finally {
        await t.query(`UPDATE audit_events SET action = $1 WHERE id = $2`, [before.action, id]);
      }
      expect((await verify()).intact).toBe(true);
    });

    onlyOn('postgres', 'the role switch is PostgreSQL; SQL Server DENYs are pinned in mssql-migrations.spec.ts')(
      'lets the append-only role read what sealing needs and insert seals, but never update or delete them',
      async () => {
        const qr = t.db.createQueryRunner();
        await qr.connect();
        try {
          await qr.query('SET ROLE medios_app');
          await expect(qr.query(`UPDATE audit_seals SET count = count WHERE seq = 1`)).rejects.toThrow(/permission denied/);
          await expect(qr.query(`DELETE FROM audit_seals WHERE seq = 1`)).rejects.toThrow(/permission denied/);
          await expect(qr.query(`UPDATE audit_verifications SET intact = true`)).rejects.toThrow(/permission denied/);
          await expect(qr.query(`SELECT COUNT(*) FROM audit_seals`)).resolves.toBeDefined();
          // what the seal job reads as the role: the high-water mark and the writers' locks
          await expect(dialect.eventIdHighWater(qr.manager, 'audit_events')).resolves.toBeGreaterThan(0);
          await qr.query(`SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND relation = to_regclass('audit_events')`);
          await qr.query(`INSERT INTO audit_verifications (intact, findings, summary) VALUES (true, 0, '{}')`);
          // events: inserted without an id (the sequence's), never under one of the role's choosing,
          // which could later be handed out again and wedge the seals on a duplicate
          const [{ id: next }] = await qr.query(`SELECT last_value + 100 AS id FROM audit_events_id_seq`);
          for (const store of ['audit_events', 'security_events'])
            await expect(qr.query(`INSERT INTO ${store} (id, occurred_at) VALUES ($1, now())`, [next])).rejects.toThrow(/permission denied/);
          await qr.startTransaction();
          expect(await insertHashedEvent(qr, 'test.as_the_role')).toBeGreaterThan(0);
          await qr.rollbackTransaction();
        } finally {
          await qr.query('RESET ROLE').catch(() => undefined);
          await qr.release();
        }
      },
    );

    // last: a sealed row without row_hash stays a finding for good
    it('names a sealed row that has no row_hash as unhashed, not as modified with a rewritten hash', async () => {
      const [row] = await t.query(
        t.engine === 'postgres'
          ? `INSERT INTO audit_events (actor_user_id, action, target_type, target_id) VALUES (1, 'forged.unhashed', 'x', '1') RETURNING id`
          : `INSERT INTO audit_events (actor_user_id, action, target_type, target_id) OUTPUT INSERTED.id VALUES (1, 'forged.unhashed', 'x', '1')`,
      );
      await seal();
      const report = await verify();
      expect(findings(report)).toEqual([{ kind: 'unhashed', id: Number(row.id) }]);
      expect(JSON.stringify(report)).not.toContain('rewritten to match');
      // a row sealed with its hash that loses it afterwards (its content changed with it) is modified
      const id = await eventIdOf(await createMedio());
      await seal();
      const before = await rowOf(id);
      await t.query(`UPDATE audit_events SET target_id = 'tampered', row_hash = NULL WHERE id = $1`, [id]);
      expect(findings(await verify())).toEqual([
        { kind: 'unhashed', id: Number(row.id) },
        { kind: 'modified', id },
      ]);
      await t.query(`UPDATE audit_events SET target_id = $1, row_hash = $2 WHERE id = $3`, [before.target_id, before.row_hash, id]);
      expect(findings(await verify())).toEqual([{ kind: 'unhashed', id: Number(row.id) }]);
    });
  });

  /** An audit event written as the service writes it (hash included), in the runner's transaction; its id. */
  function insertHashedEvent(qr: QueryRunner, action: string): Promise<number> {
    return writeHashedEvent(qr, t.engine, action, new Date());
  }

  /** Writes a row back exactly as it was read (explicit id). */
  async function putBack(row: Record<string, unknown>): Promise<void> {
    const columns = [
      'id',
      'occurred_at',
      'actor_user_id',
      'actor_role_id',
      'ip',
      'user_agent',
      'correlation_id',
      'action',
      'target_type',
      'target_id',
      'metadata',
      'row_hash',
    ];
    const values = columns.map((c) => (c === 'metadata' && row[c] !== null && typeof row[c] === 'object' ? JSON.stringify(row[c]) : row[c]));
    if (t.engine === 'postgres') {
      await t.query(`INSERT INTO audit_events (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`, values);
    } else {
      await t.query(
        `SET IDENTITY_INSERT dbo.audit_events ON; INSERT INTO audit_events (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')}); SET IDENTITY_INSERT dbo.audit_events OFF;`,
        values,
      );
    }
  }
});

/**
 * The one seal that reaches past the retention cutoff, on a store whose first seal holds events
 * from either side of it: retention removes the older ones, and only those may be missing.
 */
describe('tamper-evident audit trail: the seal across the retention cutoff', () => {
  let t: TestApp;
  let dialect: SqlDialect;
  const HOUR = 3_600_000;
  // noon UTC: the cutoff ± 2 hours falls within one UTC day (seals are cut at each day)
  const today = new Date();
  const clock = new FixedClock(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12)));

  beforeAll(async () => {
    t = await TestApp.create({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'audit-cutoff-')) }, clock });
    dialect = t.app.get<SqlDialect>(SQL_DIALECT);
  });
  afterAll(() => t.close());

  /** An event written as the service writes it (hash included), at `occurredAt`; its id. */
  const eventAt = async (occurredAt: Date): Promise<number> => {
    await dialect.ensureMonthlyPartitions(t.db, 'audit_events', occurredAt, occurredAt);
    return writeHashedEvent(t.db, t.engine, 'test.cutoff', occurredAt);
  };
  const verify = (): Promise<VerificationReport> => t.app.get(AuditIntegrityService).verify();
  const findings = (r: VerificationReport) => r.stores.flatMap((s) => s.findings.map((f) => ({ kind: f.kind, id: f.id })));

  it('passes after retention even where the writers’ clocks put ids out of time order at the cutoff, and names the newest event once none is left', async () => {
    // nothing is sealed yet: the events of the start (written now) are removed, so that ids follow
    // the order of writing from the first event on, as in a store that has been running for years
    await t.query(`DELETE FROM audit_events`);
    const cutoff = yearsBefore(t.app.get(Clock).now(), 10).getTime();
    // written in this id order, from two writers whose clocks differ by hours at the cutoff
    const a = await eventAt(new Date(cutoff - 2 * HOUR));
    const b = await eventAt(new Date(cutoff + 0.5 * HOUR));
    const c = await eventAt(new Date(cutoff - HOUR));
    const d = await eventAt(clock.now());
    const result = await quickSealer(t).run();
    expect(result.status).toBe('ok');
    expect(findings(await verify())).toEqual([]);
    // retention removes a and c, older than the cutoff: no finding (before, b was taken as the
    // first survivor and c, after it, as deleted)
    expect((await t.app.get(RetentionService).run()).status).toBe('ok');
    expect((await t.query(`SELECT id FROM audit_events WHERE action = 'test.cutoff' ORDER BY id`)).map((r: { id: unknown }) => Number(r.id))).toEqual(
      [b, d],
    );
    const after = await verify();
    expect(after.stores.flatMap((st) => st.findings.map((f) => f.detail))).toEqual([]);
    expect(after.intact).toBe(true);
    // b, the last of its day's seal, is within an hour of the cutoff: retention may take it any
    // moment, so its loss is no finding; d's, sealed on its own day, is
    await t.query(`DELETE FROM audit_events WHERE id IN ($1, $2)`, [b, d]);
    expect(findings(await verify())).toEqual([{ kind: 'deleted', id: d }]);
    expect(a).toBeLessThan(c);
  });
});

/**
 * An event past the retention cutoff that retention has not removed yet (it runs once a year):
 * still stored and served, so still compared.
 */
describe('tamper-evident audit trail: events past the retention cutoff, still stored', () => {
  let t: TestApp;
  let dialect: SqlDialect;
  const DAY = 86_400_000;

  beforeAll(async () => {
    t = await TestApp.create({ env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'audit-expired-')) } });
    dialect = t.app.get<SqlDialect>(SQL_DIALECT);
  });
  afterAll(() => t.close());

  const verify = (): Promise<VerificationReport> => t.app.get(AuditIntegrityService).verify();
  const findings = (r: VerificationReport) => r.stores.flatMap((s) => s.findings.map((f) => ({ kind: f.kind, id: f.id })));

  it('names a change to one of them (its row_hash rewritten to match); its deletion is retention’s, no finding', async () => {
    const occurredAt = new Date(yearsBefore(new Date(), 10).getTime() - 40 * DAY);
    await dialect.ensureMonthlyPartitions(t.db, 'audit_events', occurredAt, occurredAt);
    const old = await writeHashedEvent(t.db, t.engine, 'test.expired', occurredAt);
    expect((await quickSealer(t).run()).status).toBe('ok');
    const intact = await verify();
    expect(findings(intact)).toEqual([]);
    expect(intact.stores.find((st) => st.store === 'audit_events')!.expiredSeals).toBe(1);

    // rewritten, with a row_hash that matches the new content: only the seal can tell
    const forged = hashedEventFields('test.expired', occurredAt, 'otro-objetivo');
    await t.query('UPDATE audit_events SET target_id = $1, row_hash = $2 WHERE id = $3', [forged.targetId, forged.hash, old]);
    expect(findings(await verify())).toEqual([{ kind: 'modified', id: old }]);

    await t.query('DELETE FROM audit_events WHERE id = $1', [old]);
    expect(findings(await verify())).toEqual([]);
  });
});

/** The fields and row hash of an audit event as writeHashedEvent writes it. */
function hashedEventFields(action: string, occurredAt: Date, targetId = '1'): { targetId: string; hash: string } {
  const hash = rowHash('audit_events', {
    occurredAt: canonicalInstant(occurredAt),
    actorUserId: 1,
    actorRoleId: null,
    ip: null,
    userAgent: null,
    correlationId: null,
    action,
    targetType: 'test',
    targetId,
    metadata: null,
  });
  return { targetId, hash };
}

/** An audit event written as the service writes it (hash included), at `occurredAt`, through `db`; its id. */
async function writeHashedEvent(
  db: { query(sql: string, parameters?: unknown[]): Promise<any> },
  engine: string,
  action: string,
  occurredAt: Date,
): Promise<number> {
  const { hash } = hashedEventFields(action, occurredAt);
  const sql =
    engine === 'postgres'
      ? `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, row_hash) VALUES ($1, 1, $2, 'test', '1', $3) RETURNING id`
      : `INSERT INTO audit_events (occurred_at, actor_user_id, action, target_type, target_id, row_hash) OUTPUT INSERTED.id VALUES (@0, 1, @1, 'test', '1', @2)`;
  const [row] = await db.query(sql, [occurredAt, action, hash]);
  return Number(row.id);
}

/** A seal service with a short wait for open transactions (the default waits seconds). */
function quickSealer(t: TestApp, options: Partial<AuditSealOptions> = {}): AuditSealService {
  return new AuditSealService(
    t.db,
    t.app.get<SqlDialect>(SQL_DIALECT),
    t.app.get(MaintenanceJobRunner),
    t.app.get(AuditSigningKeys),
    t.app.get(AuditSealsRepository),
    t.app.get(Clock),
    { settleTimeoutMs: 300, maxEventsPerSeal: 50_000, ...options },
  );
}
