import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonTransformer, TIMESTAMP } from '../database/column-types.js';

export type SecurityResult = 'success' | 'failure';

/** Append-only trail of sign-in, token and permission events. */
@Entity({ name: 'security_events' })
export class SecurityEventEntity {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'increment',
    transformer: { to: (v: unknown) => v, from: (v: unknown) => (v === null ? null : Number(v)) },
  })
  id: number;

  @PrimaryColumn({ name: 'occurred_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  occurredAt: Date;

  @Column({ type: 'varchar' })
  action: string;

  @Column({ type: 'varchar' })
  result: SecurityResult;

  @Column({ name: 'actor_user_id', type: 'int', nullable: true })
  actorUserId: number | null;

  @Column({ name: 'attempted_username', type: 'varchar', nullable: true })
  attemptedUsername: string | null;

  @Column({ name: 'session_id', type: 'varchar', nullable: true })
  sessionId: string | null;

  @Column({ name: 'failure_reason', type: 'varchar', nullable: true })
  failureReason: string | null;

  @Column({ type: 'varchar', nullable: true })
  ip: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: unknown;
}
