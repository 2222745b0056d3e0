import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, TIMESTAMP } from '../../database/column-types.js';

/** puntos_de_venta: an AFIP point of sale of a medio; numeroAFIP unique within the medio. */
@Entity({ name: 'puntos_de_venta' })
export class PuntoDeVentaEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'medio_id', type: 'int' })
  medioId!: number;

  @Column({ name: 'numero_afip', type: 'int' })
  numeroAFIP!: number;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  domicilio!: string;

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
