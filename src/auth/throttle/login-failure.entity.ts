import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TIMESTAMP } from '../../database/column-types.js';

export type ThrottleScope = 'user' | 'ip';

/** login_failures: one row per admitted sign-in attempt and scope; failures stay for the window. */
@Entity({ name: 'login_failures' })
export class LoginFailureEntity {
  @PrimaryColumn({
    type: 'bigint',
    generated: 'increment',
    transformer: { to: (v: unknown) => v, from: (v: unknown) => (v === null ? null : Number(v)) },
  })
  id!: number;

  @Column({ type: 'varchar' })
  scope!: ThrottleScope;

  @Column({ type: 'varchar' })
  subject!: string;

  @Column({ name: 'occurred_at', type: TIMESTAMP })
  occurredAt!: Date;
}
