import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillRowHashes } from '../../src/audit/integrity/event-rows.js';
import { PostgresDialect } from '../../src/database/dialects/postgres.dialect.js';

/**
 * Tamper evidence for the two event stores (docs/operations-audit.md, "Tamper-evident audit trail"):
 * - `row_hash` on audit_events and security_events (on every partition, present and future): the
 *   SHA-256 of the row's canonical form, written by the service with the row. Rows that exist now
 *   get the hash of their current fields here (the evidence for them starts with this migration);
 * - an index on `id` (with row_hash) per partition: the seal job and the verification read the
 *   stores in id order, in id windows;
 * - `audit_seals`: the signed seals, and `audit_verifications`: the result of each scheduled
 *   verification. The service's role may INSERT and SELECT them, never UPDATE, DELETE or TRUNCATE
 *   (the append-only migration's default privileges granted those; they are taken back here).
 */
export class AuditSeals1763713000000 implements MigrationInterface {
  name = 'AuditSeals1763713000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE audit_events ADD COLUMN row_hash char(64) NULL;
      ALTER TABLE security_events ADD COLUMN row_hash char(64) NULL;
      CREATE INDEX ix_audit_events_id ON audit_events (id) INCLUDE (row_hash);
      CREATE INDEX ix_security_events_id ON security_events (id) INCLUDE (row_hash);

      CREATE TABLE audit_seals (
        id                  bigserial PRIMARY KEY,
        store               varchar(32)  NOT NULL,
        seq                 bigint       NOT NULL,
        first_id            bigint       NOT NULL,
        last_id             bigint       NOT NULL,
        up_to               bigint       NOT NULL,
        ids                 text         NOT NULL,
        pending             text         NOT NULL,
        count               int          NOT NULL,
        digest              char(64)     NOT NULL,
        row_tags            text         NOT NULL,
        events_from         varchar(32)  NOT NULL,
        events_to           varchar(32)  NOT NULL,
        previous_seal_hash  char(64)     NULL,
        seal_hash           char(64)     NOT NULL,
        sealed_at           timestamptz  NOT NULL,
        key_id              varchar(64)  NOT NULL,
        signature           varchar(128) NOT NULL,
        CONSTRAINT uq_audit_seals_store_seq UNIQUE (store, seq),
        CONSTRAINT ck_audit_seals_store CHECK (store IN ('audit_events', 'security_events'))
      );

      CREATE TABLE audit_verifications (
        id           bigserial PRIMARY KEY,
        verified_at  timestamptz NOT NULL DEFAULT now(),
        intact       boolean     NOT NULL,
        findings     int         NOT NULL,
        summary      text        NOT NULL
      );

      DO $do$
      BEGIN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'medios_app') THEN
          REVOKE UPDATE, DELETE, TRUNCATE ON audit_seals, audit_verifications FROM medios_app;
          GRANT SELECT, INSERT ON audit_seals, audit_verifications TO medios_app;
          GRANT USAGE, SELECT ON SEQUENCE audit_seals_id_seq, audit_verifications_id_seq TO medios_app;
        END IF;
      END
      $do$;
    `);
    const dialect = new PostgresDialect();
    await backfillRowHashes(q, dialect, 'audit_events');
    await backfillRowHashes(q, dialect, 'security_events');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE IF EXISTS audit_verifications, audit_seals;
      DROP INDEX IF EXISTS ix_security_events_id;
      DROP INDEX IF EXISTS ix_audit_events_id;
      ALTER TABLE security_events DROP COLUMN IF EXISTS row_hash;
      ALTER TABLE audit_events DROP COLUMN IF EXISTS row_hash;
    `);
  }
}
