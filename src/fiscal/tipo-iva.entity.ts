import { Column, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, decimalTransformer, TIMESTAMP } from '../database/column-types.js';

/** tipos_iva: a VAT type; `codigo` is the AFIP integer code (unique, immutable). */
@Entity({ name: 'tipos_iva' })
export class TipoIvaEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ type: 'int' })
  codigo!: number;

  @Column({ type: 'varchar' })
  descripcion!: string;

  /** numeric(5,2): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 5, scale: 2, transformer: decimalTransformer })
  porcentaje!: number;

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
