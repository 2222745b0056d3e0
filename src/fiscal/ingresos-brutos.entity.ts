import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';
import { decimalTransformer } from '../database/column-types.js';
import type { Provincia } from './provincias.js';

/** ingresos_brutos: the gross-income-tax rate of a provincia; one active entry per provincia. */
@Entity({ name: 'ingresos_brutos' })
export class IngresosBrutosEntity extends ResourceRow() {
  @Column({ type: 'varchar' })
  provincia!: Provincia;

  @Column({ type: 'varchar' })
  descripcion!: string;

  /** numeric(7,4): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 7, scale: 4, transformer: decimalTransformer })
  alicuota!: number;
}
