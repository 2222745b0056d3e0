import { Column, Entity } from 'typeorm';
import { jsonTransformer } from '../database/column-types.js';
import { EventRow } from './event-row.js';

/** Append-only audit trail of mutations, partitioned monthly by occurred_at. */
@Entity({ name: 'audit_events' })
export class AuditEventEntity extends EventRow {
  @Column({ name: 'actor_user_id', type: 'int' })
  actorUserId!: number;

  @Column({ name: 'actor_role_id', type: 'int', nullable: true })
  actorRoleId!: number | null;

  @Column({ type: 'varchar', nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent!: string | null;

  @Column({ name: 'correlation_id', type: 'varchar', nullable: true })
  correlationId!: string | null;

  @Column({ type: 'varchar' })
  action!: string;

  @Column({ name: 'target_type', type: 'varchar' })
  targetType!: string;

  @Column({ name: 'target_id', type: 'varchar' })
  targetId!: string;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: unknown;
}
