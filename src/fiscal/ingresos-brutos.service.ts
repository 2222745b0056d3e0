import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type FindOptionsWhere, Not } from 'typeorm';
import { AuditService } from '../audit/audit.service.js';
import { Clock } from '../common/context/clock.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../database/dialects/index.js';
import type { FiscalListQueryDto } from './dto/fiscal-query.dto.js';
import { type IngresosBrutosBodyDto, IngresosBrutosDto } from './dto/ingresos-brutos.dto.js';
import { IngresosBrutosEntity } from './ingresos-brutos.entity.js';
import type { Provincia } from './provincias.js';
import { uniqueOr409 } from '../common/errors/unique-or-409.js';
import { VersionedWrites } from '../common/versioning/versioned-writes.js';

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
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: IngresosBrutosBodyDto): Promise<IngresosBrutosDto> {
    await this.ensureNoOtherActive(dto.provincia);
    const now = this.clock.now();
    const id = await uniqueOr409(this.dialect, duplicateMessage(dto.provincia), async () => {
      const result = await this.txHost.tx.insert(IngresosBrutosEntity, {
        provincia: dto.provincia,
        descripcion: dto.descripcion,
        alicuota: dto.alicuota,
        activo: true,
        createdAt: now,
        updatedAt: now,
      });
      return Number(result.identifiers[0]?.id);
    });
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
    await uniqueOr409(this.dialect, duplicateMessage(dto.provincia), () =>
      this.versions.update(IngresosBrutosEntity, { id }, { ...editable(dto), updatedAt: this.clock.now() }),
    );
    await this.audit.record('ingresos_brutos.update', 'ingresos_brutos', id, { before: editable(entry), after: editable(dto) });
    return IngresosBrutosDto.of(await this.find(id));
  }

  async deactivate(id: number): Promise<IngresosBrutosDto> {
    return this.setActivo(await this.lock(id), false);
  }

  /** 409 `duplicado` while another entry of the same provincia is active. */
  async reactivate(id: number): Promise<IngresosBrutosDto> {
    const entry = await this.lock(id);
    if (!entry.activo) await this.ensureNoOtherActive(entry.provincia, id);
    return this.setActivo(entry, true);
  }

  private async setActivo(entry: IngresosBrutosEntity, activo: boolean): Promise<IngresosBrutosDto> {
    if (entry.activo === activo) return IngresosBrutosDto.of(entry);
    const now = this.clock.now();
    await uniqueOr409(this.dialect, duplicateMessage(entry.provincia), () =>
      this.versions.update(IngresosBrutosEntity, { id: entry.id }, { activo, updatedAt: now }),
    );
    await this.audit.record(activo ? 'ingresos_brutos.reactivate' : 'ingresos_brutos.deactivate', 'ingresos_brutos', entry.id, {
      before: { activo: entry.activo },
      after: { activo },
    });
    return IngresosBrutosDto.of({ ...entry, activo, updatedAt: now });
  }

  private async ensureNoOtherActive(provincia: Provincia, exceptId?: number): Promise<void> {
    const where: FindOptionsWhere<IngresosBrutosEntity> = { provincia, activo: true };
    if (exceptId !== undefined) where.id = Not(exceptId);
    if (await this.txHost.tx.existsBy(IngresosBrutosEntity, where)) throw new DomainError('duplicado', duplicateMessage(provincia));
  }

  private async lock(id: number): Promise<IngresosBrutosEntity> {
    const entry = await this.txHost.tx.findOne(IngresosBrutosEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!entry) throw new NotFoundError('Ingresos brutos', id);
    return entry;
  }

  private async find(id: number): Promise<IngresosBrutosEntity> {
    const entry = await this.txHost.tx.findOneBy(IngresosBrutosEntity, { id });
    if (!entry) throw new NotFoundError('Ingresos brutos', id);
    return entry;
  }
}

function editable(e: { provincia: Provincia; descripcion: string; alicuota: number }) {
  return { provincia: e.provincia, descripcion: e.descripcion, alicuota: e.alicuota };
}

function duplicateMessage(provincia: Provincia): string {
  return `Ya hay una entrada de ingresos brutos activa para ${provincia}`;
}
