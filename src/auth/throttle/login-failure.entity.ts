import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintTransformer, BOOLEAN, TIMESTAMP } from '../../database/column-types.js';

export type ThrottleScope = 'user' | 'ip';

/** login_failures: one row per admitted sign-in attempt and scope, `settled` once it failed; failures stay for the window. */
@Entity({ name: 'login_failures' })
export class LoginFailureEntity {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintTransformer })
  id!: number;

  @Column({ type: 'varchar' })
  scope!: ThrottleScope;

  @Column({ type: 'varchar' })
  subject!: string;

  @Column({ name: 'occurred_at', type: TIMESTAMP })
  occurredAt!: Date;

  /** false while the attempt is in flight; true once it ended as a failure */
  @Column({ type: BOOLEAN })
  settled!: boolean;
}
