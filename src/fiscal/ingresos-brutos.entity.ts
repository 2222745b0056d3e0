import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, decimalTransformer, TIMESTAMP } from '../database/column-types.js';
import type { Provincia } from './provincias.js';

/** ingresos_brutos: the gross-income-tax rate of a provincia; one active entry per provincia. */
@Entity({ name: 'ingresos_brutos' })
export class IngresosBrutosEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  provincia!: Provincia;

  @Column({ type: 'varchar' })
  descripcion!: string;

  /** numeric(7,4): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 7, scale: 4, transformer: decimalTransformer })
  alicuota!: number;

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
