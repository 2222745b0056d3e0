import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { type CreateMedioDto, MedioDto, type MediosQueryDto, type UpdateMedioDto } from './dto/medio.dto.js';
import { MedioEntity } from './medio.entity.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';

/** Medios (SEED 2.6, 3.2, 4.5): codigo unique globally and immutable; idempotent (de)activation. */
@Injectable()
export class MediosService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: CreateMedioDto): Promise<MedioDto> {
    const tx = this.txHost.tx;
    const duplicate = `Ya existe un medio con codigo ${dto.codigo}`;
    if (await tx.existsBy(MedioEntity, { codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const now = this.clock.now();
    const id = await uniqueOr409(this.dialect, duplicate, async () => {
      const result = await tx.insert(MedioEntity, { codigo: dto.codigo, nombre: dto.nombre, activo: true, createdAt: now, updatedAt: now });
      return Number(result.identifiers[0]?.id);
    });
    await this.audit.record('medio.create', 'medio', id, { after: { codigo: dto.codigo, nombre: dto.nombre } });
    return MedioDto.of(await this.find(id));
  }

  async list(query: MediosQueryDto): Promise<MedioDto[]> {
    const rows = await this.txHost.tx.find(MedioEntity, {
      where: query.activo === undefined ? {} : { activo: query.activo },
      order: { codigo: 'ASC' },
    });
    return rows.map((r) => MedioDto.of(r));
  }

  async get(id: number): Promise<MedioDto> {
    return MedioDto.of(await this.find(id));
  }

  async update(id: number, dto: UpdateMedioDto): Promise<MedioDto> {
    const medio = await this.lock(id, 'pessimistic_write');
    const now = this.clock.now();
    await this.txHost.tx.update(MedioEntity, { id }, { nombre: dto.nombre, updatedAt: now });
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
    await this.txHost.tx.update(MedioEntity, { id }, { activo, updatedAt: now });
    await this.audit.record(activo ? 'medio.reactivate' : 'medio.deactivate', 'medio', id, { before: { activo: medio.activo }, after: { activo } });
    return MedioDto.of({ ...medio, activo, updatedAt: now });
  }

  private async find(id: number): Promise<MedioEntity> {
    const medio = await this.txHost.tx.findOneBy(MedioEntity, { id });
    if (!medio) throw new NotFoundError('Medio', id);
    return medio;
  }

  private async lock(id: number, mode: 'pessimistic_read' | 'pessimistic_write'): Promise<MedioEntity> {
    const medio = await this.txHost.tx.findOne(MedioEntity, { where: { id }, lock: { mode } });
    if (!medio) throw new NotFoundError('Medio', id);
    return medio;
  }
}
