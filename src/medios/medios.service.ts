import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { type CreateMedioDto, MedioDto, type MediosQueryDto, type UpdateMedioDto } from './dto/medio.dto.js';
import { MedioEntity } from './medio.entity.js';
import { MediosRepository } from './medios.repository.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { containsAny, containsPattern } from '../common/pagination/search.js';
import { withRowVersion } from '../common/versioning/etag.js';
import { findResource, type RowLock } from '../database/resource-row.js';

/**
 * Medios: codigo unique globally and immutable; idempotent (de)activation.
 * The read by id and the create, the benchmark's hot paths (BENCHMARKS.md), go through
 * MediosRepository's prepared statements.
 */
@Injectable()
export class MediosService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    private readonly medios: MediosRepository,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /** One statement: the store's unique index on codigo answers a duplicate (409), concurrent creates included. */
  async create(dto: CreateMedioDto): Promise<MedioDto> {
    const now = this.clock.now();
    const values = { codigo: dto.codigo, nombre: dto.nombre, activo: true, createdAt: now, updatedAt: now };
    const medio = await uniqueOr409(this.dialect, `Ya existe un medio con codigo ${dto.codigo}`, () => this.medios.insert(values));
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
    return MedioDto.of(await this.edits.apply({ entity: MedioEntity, row: medio, changes: { nombre: dto.nombre }, resource: 'medio' }));
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
    return MedioDto.of(await this.activation.set({ entity: MedioEntity, row: medio, activo, resource: 'medio' }));
  }

  private async find(id: number): Promise<MedioEntity> {
    const medio = await this.medios.findById(id);
    if (!medio) throw new NotFoundError('Medio', id);
    return medio;
  }

  private lock(id: number, mode: RowLock): Promise<MedioEntity> {
    return findResource(this.txHost.tx, MedioEntity, 'Medio', id, mode);
  }
}
