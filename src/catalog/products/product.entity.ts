import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../../database/resource-row.js';

/** products: `codigo` unique and immutable; belongs to a rubro and a product type. */
@Entity({ name: 'products' })
export class ProductEntity extends ResourceRow() {
  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ name: 'rubro_id', type: 'int' })
  rubroId!: number;

  @Column({ name: 'product_type_id', type: 'int' })
  productTypeId!: number;
}
