import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, TIMESTAMP } from '../database/column-types.js';

/** roles (system-versioned: history in roles_history). */
@Entity({ name: 'roles' })
export class RoleEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  descripcion!: string;

  @Column({ type: BOOLEAN })
  activo!: boolean;

  @Column({ name: 'created_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP, default: () => 'CURRENT_TIMESTAMP' })
  updatedAt!: Date;

  /** incremented by every UPDATE (TypeORM adds `version = version + 1`); compared by If-Match changes */
  @VersionColumn({ type: 'int' })
  version!: number;
}
