import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for GET /api/v1/audit/events. Each combination of the equality filters (actorUserId,
 * targetType, targetId) has an index whose leading columns are exactly those filters, followed by
 * (occurred_at DESC, id DESC): the page is then one ordered index walk per partition — `from`,
 * `to` and the cursor are range conditions on the same index — that stops after limit + 1 rows,
 * whatever the size of the table. The platform migration has no filter (keyset), actor, target
 * (type + id) and target_id; this adds the other four. Audit events are written by human
 * back-office actions, so the extra index maintenance on insert is cheap next to unbounded reads.
 * On a partitioned table (PostgreSQL-specific) each index is created on every partition, present
 * and future.
 */
export class AuditRead1763712500000 implements MigrationInterface {
  name = 'AuditRead1763712500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX ix_audit_events_target_type ON audit_events (target_type, occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_actor_target_type ON audit_events (actor_user_id, target_type, occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_actor_target_id ON audit_events (actor_user_id, target_id, occurred_at DESC, id DESC);
      CREATE INDEX ix_audit_events_actor_target ON audit_events (actor_user_id, target_type, target_id, occurred_at DESC, id DESC);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX IF EXISTS ix_audit_events_actor_target;
      DROP INDEX IF EXISTS ix_audit_events_actor_target_id;
      DROP INDEX IF EXISTS ix_audit_events_actor_target_type;
      DROP INDEX IF EXISTS ix_audit_events_target_type;
    `);
  }
}
