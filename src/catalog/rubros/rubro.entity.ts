import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../../database/resource-row.js';

/** rubros: the category tree as an adjacency list (parent_id null for a root). */
@Entity({ name: 'rubros' })
export class RubroEntity extends ResourceRow() {
  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ name: 'parent_id', type: 'int', nullable: true })
  parentId!: number | null;
}
