import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, TIMESTAMP } from '../database/column-types.js';

/** Append-only audit trail of mutations, partitioned monthly by occurred_at. */
@Entity({ name: 'audit_events' })
export class AuditEventEntity {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'increment',
    transformer: { to: (v: unknown) => v, from: (v: unknown) => (v === null ? null : Number(v)) },
  })
  id: number;

  @PrimaryColumn({ name: 'occurred_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  occurredAt: Date;

  @Column({ name: 'actor_user_id', type: 'int' })
  actorUserId: number;

  @Column({ name: 'actor_role_id', type: 'int', nullable: true })
  actorRoleId: number | null;

  @Column({ type: 'varchar', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent: string | null;

  @Column({ name: 'correlation_id', type: 'varchar', nullable: true })
  correlationId: string | null;

  @Column({ type: 'varchar' })
  action: string;

  @Column({ name: 'target_type', type: 'varchar' })
  targetType: string;

  @Column({ name: 'target_id', type: 'varchar' })
  targetId: string;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: unknown;
}
