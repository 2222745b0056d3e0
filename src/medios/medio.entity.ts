import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, TIMESTAMP } from '../database/column-types.js';

/** medios: a media outlet; `codigo` unique globally and immutable. */
@Entity({ name: 'medios' })
export class MedioEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: BOOLEAN })
  activo!: boolean;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: TIMESTAMP })
  updatedAt!: Date;

  /** incremented by every UPDATE (TypeORM adds `version = version + 1`); compared by If-Match changes */
  @VersionColumn({ type: 'int' })
  version!: number;
}
