import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import type { FiscalListQueryDto } from './dto/fiscal-query.dto.js';
import { type CreateTipoIvaDto, TipoIvaDto, type UpdateTipoIvaDto } from './dto/tipo-iva.dto.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { TipoIvaEntity } from './tipo-iva.entity.js';
import { findResource, insertResource } from '../database/resource-row.js';

/** Tipos de IVA: AFIP codigo unique and immutable, porcentaje an exact decimal(5,2). */
@Injectable()
export class TiposIvaService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: CreateTipoIvaDto): Promise<TipoIvaDto> {
    const tx = this.txHost.tx;
    const duplicate = `Ya existe un tipo de IVA con codigo ${dto.codigo}`;
    if (await tx.existsBy(TipoIvaEntity, { codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const values = { codigo: dto.codigo, descripcion: dto.descripcion, porcentaje: dto.porcentaje };
    const id = await uniqueOr409(this.dialect, duplicate, () => insertResource(tx, TipoIvaEntity, values, this.clock.now()));
    await this.audit.record('tipo_iva.create', 'tipo_iva', id, { after: values });
    return TipoIvaDto.of(await this.find(id));
  }

  async list(query: FiscalListQueryDto): Promise<TipoIvaDto[]> {
    const rows = await this.txHost.tx.find(TipoIvaEntity, {
      where: query.activo === undefined ? {} : { activo: query.activo },
      order: { codigo: 'ASC' },
    });
    return rows.map((r) => TipoIvaDto.of(r));
  }

  async get(id: number): Promise<TipoIvaDto> {
    return TipoIvaDto.of(await this.find(id));
  }

  async update(id: number, dto: UpdateTipoIvaDto): Promise<TipoIvaDto> {
    const tipo = await this.lock(id);
    const changes = { descripcion: dto.descripcion, porcentaje: dto.porcentaje };
    await this.edits.apply({ entity: TipoIvaEntity, row: tipo, changes, resource: 'tipo_iva' });
    return TipoIvaDto.of(await this.find(id));
  }

  deactivate(id: number): Promise<TipoIvaDto> {
    return this.setActivo(id, false);
  }

  reactivate(id: number): Promise<TipoIvaDto> {
    return this.setActivo(id, true);
  }

  private async setActivo(id: number, activo: boolean): Promise<TipoIvaDto> {
    const tipo = await this.lock(id);
    return TipoIvaDto.of(await this.activation.set({ entity: TipoIvaEntity, row: tipo, activo, resource: 'tipo_iva' }));
  }

  private lock(id: number): Promise<TipoIvaEntity> {
    return findResource(this.txHost.tx, TipoIvaEntity, 'Tipo de IVA', id, 'pessimistic_write');
  }

  private find(id: number): Promise<TipoIvaEntity> {
    return findResource(this.txHost.tx, TipoIvaEntity, 'Tipo de IVA', id);
  }
}
