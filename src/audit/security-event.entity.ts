import { Column, Entity } from 'typeorm';
import { jsonTransformer } from '../database/column-types.js';
import { EventRow } from './event-row.js';

export type SecurityResult = 'success' | 'failure';

/** Append-only trail of sign-in, token and permission events. */
@Entity({ name: 'security_events' })
export class SecurityEventEntity extends EventRow {
  @Column({ type: 'varchar' })
  action!: string;

  @Column({ type: 'varchar' })
  result!: SecurityResult;

  @Column({ name: 'actor_user_id', type: 'int', nullable: true })
  actorUserId!: number | null;

  @Column({ name: 'attempted_username', type: 'varchar', nullable: true })
  attemptedUsername!: string | null;

  @Column({ name: 'session_id', type: 'varchar', nullable: true })
  sessionId!: string | null;

  @Column({ name: 'failure_reason', type: 'varchar', nullable: true })
  failureReason!: string | null;

  @Column({ type: 'varchar', nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent!: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: unknown;
}
