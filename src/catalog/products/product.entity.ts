import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, TIMESTAMP } from '../../database/column-types.js';

/** products: `codigo` unique and immutable; belongs to a rubro and a product type. */
@Entity({ name: 'products' })
export class ProductEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ name: 'rubro_id', type: 'int' })
  rubroId!: number;

  @Column({ name: 'product_type_id', type: 'int' })
  productTypeId!: number;

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
