import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP } from '../database/column-types.js';

/**
 * sessions: one row per refresh-token family, keyed by the family id (the access token's `sid`).
 * A session is active while `ended_at` is null and `expires_at` is in the future; once ended it
 * stays ended (docs/auth.md "Sessions").
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  /** uuid / uniqueidentifier; mapped as text so it compares as the token's lower-case `sid` */
  @PrimaryColumn({ type: 'varchar' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;

  /** the last sign-in or refresh (not every request) */
  @Column({ name: 'last_used_at', type: TIMESTAMP })
  lastUsedAt: Date;

  /** the expiry of the family's current refresh token */
  @Column({ name: 'expires_at', type: TIMESTAMP })
  expiresAt: Date;

  @Column({ name: 'ended_at', type: TIMESTAMP, nullable: true })
  endedAt: Date | null;

  @Column({ name: 'ended_reason', type: 'varchar', nullable: true })
  endedReason: string | null;

  /** as of the last sign-in or refresh */
  @Column({ name: 'client_ip', type: 'varchar', nullable: true })
  clientIp: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent: string | null;
}
