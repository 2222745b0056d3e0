import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';

/** medios: a media outlet; `codigo` unique globally and immutable. */
@Entity({ name: 'medios' })
export class MedioEntity extends ResourceRow() {
  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;
}
