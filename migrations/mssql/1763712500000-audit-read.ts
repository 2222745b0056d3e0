import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for GET /api/v1/audit/events on SQL Server: the counterpart of
 * migrations/postgres/1763712500000-audit-read.ts (same names and keys). Each equality-filter
 * combination gets an index whose leading columns are those filters, then (occurred_at DESC,
 * id DESC). They are aligned with the partition scheme like every audit_events index: the
 * retention job's TRUNCATE … WITH (PARTITIONS …) requires every index to be aligned.
 */
export class AuditRead1763712500000 implements MigrationInterface {
  name = 'AuditRead1763712500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX ix_audit_events_target_type ON dbo.audit_events (target_type, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_actor_target_type ON dbo.audit_events (actor_user_id, target_type, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_actor_target_id ON dbo.audit_events (actor_user_id, target_id, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
      CREATE INDEX ix_audit_events_actor_target ON dbo.audit_events (actor_user_id, target_type, target_id, occurred_at DESC, id DESC) ON ps_events_monthly (occurred_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS ix_audit_events_actor_target ON dbo.audit_events;
      DROP INDEX IF EXISTS ix_audit_events_actor_target_id ON dbo.audit_events;
      DROP INDEX IF EXISTS ix_audit_events_actor_target_type ON dbo.audit_events;
      DROP INDEX IF EXISTS ix_audit_events_target_type ON dbo.audit_events;
    `);
  }
}
