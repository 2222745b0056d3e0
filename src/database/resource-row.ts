import { Column, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { BOOLEAN, TIMESTAMP } from './column-types.js';

/** How a resource maps its two timestamps beyond the name and the engine's type. */
export interface TimestampMapping {
  /**
   * The store's default as TypeORM knows it (the column has it in every migration). Only roles
   * and users declare it; TypeORM then reads both timestamps back after an insert
   * (RETURNING / OUTPUT), so their mapping stays as it was.
   */
  default?: () => string;
}

/**
 * The columns every soft-deletable, versioned resource shares: the integer id, `activo`, the two
 * UTC timestamps (TIMESTAMP: timestamptz on PostgreSQL, datetime2 on SQL Server) and the row
 * version that If-Match changes compare. An entity extends `ResourceRow()` and declares only its
 * own columns; the schema itself comes from the migrations.
 */
export function ResourceRow(timestamps: TimestampMapping = {}) {
  abstract class Row {
    @PrimaryGeneratedColumn({ type: 'int' })
    id!: number;

    @Column({ type: BOOLEAN })
    activo!: boolean;

    @Column({ name: 'created_at', type: TIMESTAMP, ...timestamps })
    createdAt!: Date;

    @Column({ name: 'updated_at', type: TIMESTAMP, ...timestamps })
    updatedAt!: Date;

    /** incremented by every UPDATE (TypeORM adds `version = version + 1`); compared by If-Match changes */
    @VersionColumn({ type: 'int' })
    version!: number;
  }
  return Row;
}
