import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type FindOptionsWhere, Not } from 'typeorm';
import { Activation } from '../common/activation/activation.js';
import { Edits } from '../common/activation/edits.js';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import type { FiscalListQueryDto } from './dto/fiscal-query.dto.js';
import { type IngresosBrutosBodyDto, IngresosBrutosDto } from './dto/ingresos-brutos.dto.js';
import { IngresosBrutosEntity } from './ingresos-brutos.entity.js';
import type { Provincia } from './provincias.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { VersionedWrites } from '../common/versioning/versioned-writes.js';
import { findResource, insertResource } from '../database/resource-row.js';

/**
 * Ingresos brutos: alicuota an exact decimal(7,4); at most one ACTIVE entry per
 * provincia — checked first for a clear 409, guaranteed by a partial (filtered) unique index.
 */
@Injectable()
export class IngresosBrutosService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: VersionedWrites,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: IngresosBrutosBodyDto): Promise<IngresosBrutosDto> {
    await this.ensureNoOtherActive(dto.provincia);
    const id = await uniqueOr409(this.dialect, duplicateMessage(dto.provincia), () =>
      insertResource(this.txHost.tx, IngresosBrutosEntity, editable(dto), this.clock.now()),
    );
    await this.audit.record('ingresos_brutos.create', 'ingresos_brutos', id, { after: editable(dto) });
    return IngresosBrutosDto.of(await this.find(id));
  }

  async list(query: FiscalListQueryDto): Promise<IngresosBrutosDto[]> {
    const rows = await this.txHost.tx.find(IngresosBrutosEntity, {
      where: query.activo === undefined ? {} : { activo: query.activo },
      order: { provincia: 'ASC', id: 'ASC' },
    });
    return rows.map((r) => IngresosBrutosDto.of(r));
  }

  async get(id: number): Promise<IngresosBrutosDto> {
    return IngresosBrutosDto.of(await this.find(id));
  }

  async update(id: number, dto: IngresosBrutosBodyDto): Promise<IngresosBrutosDto> {
    const entry = await this.lock(id);
    if (entry.activo && dto.provincia !== entry.provincia) await this.ensureNoOtherActive(dto.provincia, id);
    await this.edits.apply({
      entity: IngresosBrutosEntity,
      row: entry,
      changes: editable(dto),
      resource: 'ingresos_brutos',
      write: (changes) =>
        uniqueOr409(this.dialect, duplicateMessage(dto.provincia), () => this.versions.update(IngresosBrutosEntity, { id }, changes)),
    });
    return IngresosBrutosDto.of(await this.find(id));
  }

  deactivate(id: number): Promise<IngresosBrutosDto> {
    return this.setActivo(id, false);
  }

  /** 409 `duplicado` while another entry of the same provincia is active. */
  reactivate(id: number): Promise<IngresosBrutosDto> {
    return this.setActivo(id, true);
  }

  private async setActivo(id: number, activo: boolean): Promise<IngresosBrutosDto> {
    const entry = await this.lock(id);
    const changed = await this.activation.set({
      entity: IngresosBrutosEntity,
      row: entry,
      activo,
      resource: 'ingresos_brutos',
      // one active entry per provincia: the friendly 409 on reactivation, then the unique index under races
      check: activo ? () => this.ensureNoOtherActive(entry.provincia, id) : undefined,
      write: (changes) =>
        uniqueOr409(this.dialect, duplicateMessage(entry.provincia), () => this.versions.update(IngresosBrutosEntity, { id }, changes)),
    });
    return IngresosBrutosDto.of(changed);
  }

  private async ensureNoOtherActive(provincia: Provincia, exceptId?: number): Promise<void> {
    const where: FindOptionsWhere<IngresosBrutosEntity> = { provincia, activo: true };
    if (exceptId !== undefined) where.id = Not(exceptId);
    if (await this.txHost.tx.existsBy(IngresosBrutosEntity, where)) throw new DomainError('duplicado', duplicateMessage(provincia));
  }

  private lock(id: number): Promise<IngresosBrutosEntity> {
    return findResource(this.txHost.tx, IngresosBrutosEntity, 'Ingresos brutos', id, 'pessimistic_write');
  }

  private find(id: number): Promise<IngresosBrutosEntity> {
    return findResource(this.txHost.tx, IngresosBrutosEntity, 'Ingresos brutos', id);
  }
}

function editable(e: { provincia: Provincia; descripcion: string; alicuota: number }) {
  return { provincia: e.provincia, descripcion: e.descripcion, alicuota: e.alicuota };
}

function duplicateMessage(provincia: Provincia): string {
  return `Ya hay una entrada de ingresos brutos activa para ${provincia}`;
}
