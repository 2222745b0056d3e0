import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CALENDAR_DATE, calendarDateTransformer, decimalTransformer, TIMESTAMP } from '../../database/column-types.js';

/** product_prices: the append-only price history of a product; one price per product and date. */
@Entity({ name: 'product_prices' })
export class ProductPriceEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id!: number;

  @Column({ name: 'product_id', type: 'int' })
  productId!: number;

  /** `yyyy-MM-dd` */
  @Column({ name: 'fecha_vigencia', type: CALENDAR_DATE, transformer: calendarDateTransformer })
  fechaVigencia!: string;

  /** numeric(12,2): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 12, scale: 2, transformer: decimalTransformer })
  monto!: number;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt!: Date;
}
