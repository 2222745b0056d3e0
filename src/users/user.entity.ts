import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, jsonTransformer, TIMESTAMP } from '../database/column-types.js';

export interface PermissionOverrides {
  granted: string[];
  denied: string[];
}

/** users (system-versioned: history in users_history). */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  username!: string;

  /** bcrypt hash; never returned, logged or audited */
  @Column({ name: 'password_hash', type: 'varchar', select: false })
  passwordHash!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  apellido!: string;

  @Column({ type: 'varchar' })
  email!: string;

  @Column({ name: 'role_id', type: 'int' })
  roleId!: number;

  @Column({ type: BOOLEAN })
  activo!: boolean;

  @Column({ name: 'must_change_password', type: BOOLEAN })
  mustChangePassword!: boolean;

  @Column({ name: 'ultimo_login', type: TIMESTAMP, nullable: true })
  ultimoLogin!: Date | null;

  @Column({ name: 'permission_overrides', type: 'text', transformer: jsonTransformer })
  permissionOverrides!: PermissionOverrides;

  @Column({ name: 'created_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  updatedAt!: Date;

  /** incremented by every UPDATE (TypeORM adds `version = version + 1`); compared by If-Match changes */
  @VersionColumn({ type: 'int' })
  version!: number;
}
