import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../../database/resource-row.js';

/** product_types: `codigo` unique and immutable. */
@Entity({ name: 'product_types' })
export class ProductTypeEntity extends ResourceRow() {
  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  descripcion!: string;
}
