import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintTransformer, TIMESTAMP } from '../database/column-types.js';

/** refresh_tokens: only base64url(SHA-256(token)) is stored, never the token. */
@Entity({ name: 'refresh_tokens' })
export class RefreshTokenEntity {
  @PrimaryColumn({ type: 'bigint', generated: 'increment', transformer: bigintTransformer })
  id!: number;

  @Column({ name: 'token_hash', type: 'varchar' })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'int' })
  userId!: number;

  @Column({ name: 'family_id', type: 'varchar' })
  familyId!: string;

  @Column({ name: 'parent_id', type: 'bigint', nullable: true, transformer: bigintTransformer })
  parentId!: number | null;

  @Column({ name: 'expires_at', type: TIMESTAMP })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: TIMESTAMP, nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'revoked_reason', type: 'varchar', nullable: true })
  revokedReason!: string | null;

  @Column({ name: 'created_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  createdAt!: Date;

  @Column({ name: 'client_ip', type: 'varchar', nullable: true })
  clientIp!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', nullable: true })
  userAgent!: string | null;
}
