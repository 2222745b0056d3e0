import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service's role inserts events but no longer chooses their ids: INSERT on every column of the
 * two event stores but `id`, which only their sequences give. The service never sends an id (the
 * row hash does not cover it). With INSERT on the whole row, `medios_app` could write an event
 * under an id the sequence had not handed out yet; once the sequence reached it, two events shared
 * the id — the primary key is (occurred_at, id), as partitioning requires — and every seal run
 * then failed while verification still reported the trail intact. On SQL Server the ids are
 * IDENTITY columns, and an explicit id needs IDENTITY_INSERT, that is ALTER on the table, which the
 * service's role is denied. A column added to an event store later needs its own column grant.
 */
const COLUMNS = {
  audit_events: 'occurred_at, actor_user_id, actor_role_id, ip, user_agent, correlation_id, action, target_type, target_id, metadata, row_hash',
  security_events: 'occurred_at, action, result, actor_user_id, attempted_username, session_id, failure_reason, ip, user_agent, metadata, row_hash',
} as const;

export class EventIds1763713400000 implements MigrationInterface {
  name = 'EventIds1763713400000';

  async up(q: QueryRunner): Promise<void> {
    for (const [store, columns] of Object.entries(COLUMNS)) {
      await q.query(`REVOKE INSERT ON ${store} FROM medios_app`);
      await q.query(`GRANT INSERT (${columns}) ON ${store} TO medios_app`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [store, columns] of Object.entries(COLUMNS)) {
      await q.query(`REVOKE INSERT (${columns}) ON ${store} FROM medios_app`);
      await q.query(`GRANT INSERT ON ${store} TO medios_app`);
    }
  }
}
