import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { MedioEntity } from './medio.entity.js';

const COLUMNS = ['id', 'codigo', 'nombre', 'activo', 'created_at', 'updated_at'] as const;
/** what the read by id and the insert answer: the row and its version, for the ETag without a second query */
const READ = [...COLUMNS, 'version'] as const;

interface MedioRow {
  id: number | string;
  codigo: string;
  nombre: string;
  activo: boolean | number;
  created_at: Date;
  updated_at: Date;
  version: number | string;
}

const toEntity = (r: MedioRow): MedioEntity => ({
  id: Number(r.id),
  codigo: r.codigo,
  nombre: r.nombre,
  activo: r.activo === true || r.activo === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  version: Number(r.version),
});

export type NewMedio = Pick<MedioEntity, 'codigo' | 'nombre' | 'activo' | 'createdAt' | 'updatedAt'>;

/**
 * The medios table's hand-written SQL. The read by id and the insert are the benchmark's hot paths
 * (BENCHMARKS.md): they run statements prepared once instead of building SQL through the entity
 * manager per request. Both run in the request's transaction.
 */
@Injectable()
export class MediosRepository {
  private readonly byId = new PreparedStatement<MedioRow>(`SELECT ${READ.join(', ')} FROM medios WHERE id = :id`, { name: 'medio_by_id' });
  private readonly insertStatement: PreparedStatement<MedioRow>;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(SQL_DIALECT) dialect: SqlDialect,
  ) {
    this.insertStatement = new PreparedStatement<MedioRow>(dialect.insertStatement('medios', COLUMNS.slice(1), READ), { name: 'medio_insert' });
  }

  /** The inserted row with its id and version; a duplicate codigo surfaces as the store's unique violation. */
  async insert(medio: NewMedio): Promise<MedioEntity> {
    const values = { codigo: medio.codigo, nombre: medio.nombre, activo: medio.activo, created_at: medio.createdAt, updated_at: medio.updatedAt };
    const row = await this.insertStatement.one(this.txHost.tx, values);
    if (!row) throw new Error('medios: the insert returned no row');
    return toEntity(row);
  }

  async findById(id: number): Promise<MedioEntity | null> {
    const row = await this.byId.one(this.txHost.tx, { id });
    return row ? toEntity(row) : null;
  }
}
