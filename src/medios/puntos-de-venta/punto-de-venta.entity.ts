import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../../database/resource-row.js';

/** puntos_de_venta: an AFIP point of sale of a medio; numeroAFIP unique within the medio. */
@Entity({ name: 'puntos_de_venta' })
export class PuntoDeVentaEntity extends ResourceRow() {
  @Column({ name: 'medio_id', type: 'int' })
  medioId!: number;

  @Column({ name: 'numero_afip', type: 'int' })
  numeroAFIP!: number;

  @Column({ type: 'varchar' })
  nombre!: string;

  @Column({ type: 'varchar' })
  domicilio!: string;
}
