import { Column, Entity } from 'typeorm';
import { ResourceRow } from '../database/resource-row.js';
import { decimalTransformer } from '../database/column-types.js';

/** tipos_iva: a VAT type; `codigo` is the AFIP integer code (unique, immutable). */
@Entity({ name: 'tipos_iva' })
export class TipoIvaEntity extends ResourceRow() {
  @Column({ type: 'int' })
  codigo!: number;

  @Column({ type: 'varchar' })
  descripcion!: string;

  /** numeric(5,2): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 5, scale: 2, transformer: decimalTransformer })
  porcentaje!: number;
}
