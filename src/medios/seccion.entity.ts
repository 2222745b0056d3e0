import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';
import type { TipoSeccion } from './medios.rules.js';

/** secciones: a section of a medio; `medioId` and `codigo` immutable, codigo unique per medio. */
@Entity({ name: 'secciones' })
export class SeccionEntity extends ResourceRow() {
  @Column({ name: 'medio_id', type: 'int' })
  medioId!: number;

  @Column({ type: 'varchar' })
  codigo!: string;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  tipo!: TipoSeccion;
}
