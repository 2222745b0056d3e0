import { Column, type EntityManager, type EntityTarget, type FindOptionsWhere, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { NotFoundError } from '../common/errors/domain-error.js';
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

/** A row lock held until the transaction ends: `pessimistic_write` before a change, `pessimistic_read` to keep a parent as it is while a child changes. */
export type RowLock = 'pessimistic_read' | 'pessimistic_write';

/** The row of a resource by id, or 404 `no_encontrado` (`<what> <id> no existe`); locked when `lock` says how. */
export async function findResource<E extends { id: number }>(
  tx: EntityManager,
  entity: EntityTarget<E>,
  what: string,
  id: number,
  lock?: RowLock,
): Promise<E> {
  const where = { id } as FindOptionsWhere<E>;
  const row = await tx.findOne(entity, lock ? { where, lock: { mode: lock } } : { where });
  if (!row) throw new NotFoundError(what, id);
  return row;
}

/** Inserts a new resource row, active and created and updated `now`, and answers its id. */
export async function insertResource<E extends { id: number }>(
  tx: EntityManager,
  entity: EntityTarget<E>,
  values: QueryDeepPartialEntity<E>,
  now: Date,
): Promise<number> {
  const result = await tx.insert(entity, { ...values, activo: true, createdAt: now, updatedAt: now });
  return Number(result.identifiers[0]?.id);
}
