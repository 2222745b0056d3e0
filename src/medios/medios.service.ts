import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { type CreateMedioDto, MedioDto, type MediosQueryDto, type UpdateMedioDto } from './dto/medio.dto.js';
import { MedioEntity } from './medio.entity.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { containsAny, containsPattern } from '../common/pagination/search.js';
import { VersionedWrites } from '../common/versioning/versioned-writes.js';
import { withRowVersion } from '../common/versioning/etag.js';

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

/**
 * Medios: codigo unique globally and immutable; idempotent (de)activation.
 * The read by id and the create are the benchmark's hot paths (BENCHMARKS.md): they run
 * statements prepared once instead of building SQL through the entity manager per request.
 */
@Injectable()
export class MediosService {
  private readonly byId = new PreparedStatement<MedioRow>(`SELECT ${READ.join(', ')} FROM medios WHERE id = :id`, { name: 'medio_by_id' });
  private readonly insert: PreparedStatement<MedioRow>;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {
    this.insert = new PreparedStatement<MedioRow>(dialect.insertStatement('medios', COLUMNS.slice(1), READ), { name: 'medio_insert' });
  }

  /** One statement: the store's unique index on codigo answers a duplicate (409), concurrent creates included. */
  async create(dto: CreateMedioDto): Promise<MedioDto> {
    const now = this.clock.now();
    const values = { codigo: dto.codigo, nombre: dto.nombre, activo: true, created_at: now, updated_at: now };
    const row = await uniqueOr409(this.dialect, `Ya existe un medio con codigo ${dto.codigo}`, () => this.insert.one(this.txHost.tx, values));
    if (!row) throw new Error('medios: the insert returned no row');
    const medio = toEntity(row);
    await this.audit.record('medio.create', 'medio', medio.id, { after: { codigo: medio.codigo, nombre: medio.nombre } });
    return withRowVersion(MedioDto.of(medio), medio.version);
  }

  async list(query: MediosQueryDto): Promise<MedioDto[]> {
    const qb = this.txHost.tx.createQueryBuilder(MedioEntity, 'm');
    if (query.activo !== undefined) qb.andWhere('m.activo = :activo', { activo: query.activo });
    if (query.search) qb.andWhere(containsAny(['m.codigo', 'm.nombre']), { pattern: containsPattern(query.search) });
    const rows = await qb.orderBy('m.codigo', 'ASC').getMany();
    return rows.map((r) => MedioDto.of(r));
  }

  async get(id: number): Promise<MedioDto> {
    const medio = await this.find(id);
    return withRowVersion(MedioDto.of(medio), medio.version);
  }

  async update(id: number, dto: UpdateMedioDto): Promise<MedioDto> {
    const medio = await this.lock(id, 'pessimistic_write');
    const now = this.clock.now();
    await this.versions.update(MedioEntity, { id }, { nombre: dto.nombre, updatedAt: now });
    await this.audit.record('medio.update', 'medio', id, { before: { nombre: medio.nombre }, after: { nombre: dto.nombre } });
    return MedioDto.of({ ...medio, nombre: dto.nombre, updatedAt: now });
  }

  deactivate(id: number): Promise<MedioDto> {
    return this.setActivo(id, false);
  }

  reactivate(id: number): Promise<MedioDto> {
    return this.setActivo(id, true);
  }

  /**
   * The parent medio of a seccion or punto de venta operation: 404 when missing, 409
   * `medio_inactivo` when inactive. The row stays share-locked until the request's transaction
   * ends, so a concurrent deactivation of the medio waits for the child operation.
   */
  async requireActive(medioId: number): Promise<MedioEntity> {
    const medio = await this.lock(medioId, 'pessimistic_read');
    if (!medio.activo) throw new DomainError('medio_inactivo', `El medio ${medioId} está inactivo`);
    return medio;
  }

  /** 404 unless the medio exists (reads of a medio's children). */
  async requireExisting(medioId: number): Promise<void> {
    await this.find(medioId);
  }

  private async setActivo(id: number, activo: boolean): Promise<MedioDto> {
    const medio = await this.lock(id, 'pessimistic_write');
    if (medio.activo === activo) return MedioDto.of(medio);
    const now = this.clock.now();
    await this.versions.update(MedioEntity, { id }, { activo, updatedAt: now });
    await this.audit.record(activo ? 'medio.reactivate' : 'medio.deactivate', 'medio', id, { before: { activo: medio.activo }, after: { activo } });
    return MedioDto.of({ ...medio, activo, updatedAt: now });
  }

  private async find(id: number): Promise<MedioEntity> {
    const row = await this.byId.one(this.txHost.tx, { id });
    if (!row) throw new NotFoundError('Medio', id);
    return toEntity(row);
  }

  private async lock(id: number, mode: 'pessimistic_read' | 'pessimistic_write'): Promise<MedioEntity> {
    const medio = await this.txHost.tx.findOne(MedioEntity, { where: { id }, lock: { mode } });
    if (!medio) throw new NotFoundError('Medio', id);
    return medio;
  }
}
