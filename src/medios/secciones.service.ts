import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { FindOptionsWhere } from 'typeorm';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import { type CreateSeccionDto, SeccionDto, type SeccionesQueryDto, type UpdateSeccionDto } from './dto/seccion.dto.js';
import { MediosService } from './medios.service.js';
import { SeccionEntity } from './seccion.entity.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { findResource, insertResource } from '../database/resource-row.js';

/**
 * Secciones: codigo unique within its medio, medioId and codigo immutable,
 * and every write needs an active parent medio (409 `medio_inactivo`).
 */
@Injectable()
export class SeccionesService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly medios: MediosService,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: CreateSeccionDto): Promise<SeccionDto> {
    await this.medios.requireActive(dto.medioId);
    const tx = this.txHost.tx;
    const duplicate = `El medio ${dto.medioId} ya tiene una seccion con codigo ${dto.codigo}`;
    if (await tx.existsBy(SeccionEntity, { medioId: dto.medioId, codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const values = { medioId: dto.medioId, codigo: dto.codigo, nombre: dto.nombre, tipo: dto.tipo };
    const id = await uniqueOr409(this.dialect, duplicate, () => insertResource(tx, SeccionEntity, values, this.clock.now()));
    await this.audit.record('seccion.create', 'seccion', id, { after: values });
    return SeccionDto.of(await this.find(id));
  }

  async list(query: SeccionesQueryDto): Promise<SeccionDto[]> {
    const where: FindOptionsWhere<SeccionEntity> = {};
    if (query.medioId !== undefined) where.medioId = query.medioId;
    if (query.activo !== undefined) where.activo = query.activo;
    const rows = await this.txHost.tx.find(SeccionEntity, { where, order: { medioId: 'ASC', codigo: 'ASC' } });
    return rows.map((r) => SeccionDto.of(r));
  }

  async get(id: number): Promise<SeccionDto> {
    return SeccionDto.of(await this.find(id));
  }

  async update(id: number, dto: UpdateSeccionDto): Promise<SeccionDto> {
    const seccion = await this.lock(id);
    const changes = { nombre: dto.nombre, tipo: dto.tipo };
    const check = this.activeMedioOf(seccion);
    return SeccionDto.of(await this.edits.apply({ entity: SeccionEntity, row: seccion, changes, resource: 'seccion', check }));
  }

  deactivate(id: number): Promise<SeccionDto> {
    return this.setActivo(id, false);
  }

  reactivate(id: number): Promise<SeccionDto> {
    return this.setActivo(id, true);
  }

  private async setActivo(id: number, activo: boolean): Promise<SeccionDto> {
    const seccion = await this.lock(id);
    const check = this.activeMedioOf(seccion);
    return SeccionDto.of(await this.activation.set({ entity: SeccionEntity, row: seccion, activo, resource: 'seccion', check }));
  }

  /** The seccion, locked for the write (404 if missing). */
  private lock(id: number): Promise<SeccionEntity> {
    return findResource(this.txHost.tx, SeccionEntity, 'Seccion', id, 'pessimistic_write');
  }

  /**
   * A change of a seccion needs its medio active (409 `medio_inactivo`); run by Edits and
   * Activation only when the change would write, so a repeat answers the seccion as it is.
   */
  private activeMedioOf(seccion: SeccionEntity): () => Promise<void> {
    return async () => void (await this.medios.requireActive(seccion.medioId));
  }

  private find(id: number): Promise<SeccionEntity> {
    return findResource(this.txHost.tx, SeccionEntity, 'Seccion', id);
  }
}
