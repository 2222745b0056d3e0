import { Column, type ColumnType, Entity, PrimaryGeneratedColumn, type ValueTransformer } from 'typeorm';
import { decimalTransformer, TIMESTAMP } from '../../database/column-types.js';
import { engineOf } from '../../database/database-url.js';

/**
 * A `date` column that reads and writes `yyyy-MM-dd` strings on both engines, whatever the
 * process's time zone. PostgreSQL: TypeORM's `date` type already does. SQL Server: TypeORM would
 * turn the string into a local-midnight JS Date and tedious sends (and reads) dates in UTC, which
 * shifts the day when the process does not run in UTC; so there the column is mapped as varchar
 * (SQL Server converts the ISO string to `date` itself) and the Date tedious returns is read with
 * UTC getters. (Engine fixed per process, as in database/column-types.ts.)
 */
const onMssql = process.env.DATABASE_URL ? engineOf(process.env.DATABASE_URL) === 'mssql' : false;
const CALENDAR_DATE: ColumnType = onMssql ? 'varchar' : 'date';
const calendarDateTransformer: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : value),
};

/** product_prices: the append-only price history of a product; one price per product and date. */
@Entity({ name: 'product_prices' })
export class ProductPriceEntity {
  @PrimaryGeneratedColumn({ type: 'int' })
  id: number;

  @Column({ name: 'product_id', type: 'int' })
  productId: number;

  /** `yyyy-MM-dd` */
  @Column({ name: 'fecha_vigencia', type: CALENDAR_DATE, transformer: calendarDateTransformer })
  fechaVigencia: string;

  /** numeric(12,2): exact in the store, a JSON number in the API */
  @Column({ type: 'decimal', precision: 12, scale: 2, transformer: decimalTransformer })
  monto: number;

  @Column({ name: 'created_at', type: TIMESTAMP })
  createdAt: Date;
}
