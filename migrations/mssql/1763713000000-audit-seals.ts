import type { MigrationInterface, QueryRunner } from 'typeorm';
import { backfillRowHashes } from '../../src/audit/integrity/event-rows.js';
import { MssqlDialect } from '../../src/database/dialects/mssql.dialect.js';

/**
 * SQL Server counterpart of migrations/postgres/1763713000000-audit-seals.ts: `row_hash` on both
 * event stores (existing rows hashed here), a partition-aligned index on `id` (aligned, so the
 * retention's TRUNCATE … WITH (PARTITIONS …) keeps working), `audit_seals` and
 * `audit_verifications`, which medios_app_role may insert and read but never update or delete.
 */
export class AuditSeals1763713000000 implements MigrationInterface {
  name = 'AuditSeals1763713000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE dbo.audit_events ADD row_hash char(64) NULL;
      ALTER TABLE dbo.security_events ADD row_hash char(64) NULL;
    `);
    await q.query(`
      CREATE INDEX ix_audit_events_id ON dbo.audit_events (id) INCLUDE (row_hash) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_security_events_id ON dbo.security_events (id) INCLUDE (row_hash) ON ps_events_monthly (occurred_at);

      CREATE TABLE dbo.audit_seals (
        id                  bigint IDENTITY(1, 1) NOT NULL CONSTRAINT pk_audit_seals PRIMARY KEY,
        store               nvarchar(32)  NOT NULL,
        seq                 bigint        NOT NULL,
        first_id            bigint        NOT NULL,
        last_id             bigint        NOT NULL,
        up_to               bigint        NOT NULL,
        ids                 nvarchar(max) NOT NULL,
        pending             nvarchar(max) NOT NULL,
        count               int           NOT NULL,
        digest              char(64)      NOT NULL,
        row_tags            nvarchar(max) NOT NULL,
        events_from         nvarchar(32)  NOT NULL,
        events_to           nvarchar(32)  NOT NULL,
        previous_seal_hash  char(64)      NULL,
        seal_hash           char(64)      NOT NULL,
        sealed_at           datetime2(7)  NOT NULL,
        key_id              nvarchar(64)  NOT NULL,
        signature           nvarchar(128) NOT NULL,
        CONSTRAINT uq_audit_seals_store_seq UNIQUE (store, seq),
        CONSTRAINT ck_audit_seals_store CHECK (store IN (N'audit_events', N'security_events'))
      );

      CREATE TABLE dbo.audit_verifications (
        id           bigint IDENTITY(1, 1) NOT NULL CONSTRAINT pk_audit_verifications PRIMARY KEY,
        verified_at  datetime2(7)  NOT NULL CONSTRAINT df_audit_verifications_verified_at DEFAULT SYSUTCDATETIME(),
        intact       bit           NOT NULL,
        findings     int           NOT NULL,
        summary      nvarchar(max) NOT NULL
      );

      DENY UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_seals TO medios_app_role;
      DENY UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_verifications TO medios_app_role;
    `);
    const dialect = new MssqlDialect();
    await backfillRowHashes(q, dialect, 'audit_events');
    await backfillRowHashes(q, dialect, 'security_events');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      REVOKE UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_verifications FROM medios_app_role;
      REVOKE UPDATE, DELETE, ALTER ON OBJECT::dbo.audit_seals FROM medios_app_role;
      DROP TABLE IF EXISTS dbo.audit_verifications, dbo.audit_seals;
      DROP INDEX IF EXISTS ix_security_events_id ON dbo.security_events;
      DROP INDEX IF EXISTS ix_audit_events_id ON dbo.audit_events;
      ALTER TABLE dbo.security_events DROP COLUMN row_hash;
      ALTER TABLE dbo.audit_events DROP COLUMN row_hash;
    `);
  }
}
