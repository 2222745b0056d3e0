import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type FindOptionsWhere, Not } from 'typeorm';
import { Activation } from '../../common/activation/activation.js';
import { Edits } from '../../common/activation/edits.js';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { type Page, pageOf } from '../../common/pagination/page.js';
import { applySort, type SortKey } from '../../common/pagination/sort.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { MediosService } from '../medios.service.js';
import { uniqueOr409 } from '../../common/errors/unique-or-409.js';
import {
  type CreatePuntoDeVentaDto,
  type MedioPuntosDeVentaQueryDto,
  PuntoDeVentaDto,
  type PuntoDeVentaLookupDto,
  PUNTO_DE_VENTA_SORT_FIELDS,
  type PuntosDeVentaQueryDto,
  type UpdatePuntoDeVentaDto,
} from './dto/punto-de-venta.dto.js';
import { PuntoDeVentaEntity } from './punto-de-venta.entity.js';
import { ReplicaReads } from '../../database/replica-reads.js';
import { VersionedWrites } from '../../common/versioning/versioned-writes.js';
import { findResource, insertResource } from '../../database/resource-row.js';

/**
 * Puntos de venta: numeroAFIP unique within the medio; a create, and an update or reactivation
 * that changes something, need an active medio (409 `medio_inactivo`); an inactive point of sale
 * may still be updated.
 * There is deliberately no number reservation or next-number operation.
 */
@Injectable()
export class PuntosDeVentaService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: ReplicaReads,
    private readonly versions: VersionedWrites,
    private readonly medios: MediosService,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async create(dto: CreatePuntoDeVentaDto): Promise<PuntoDeVentaDto> {
    await this.medios.requireActive(dto.medioId);
    await this.ensureNumeroFree(dto.medioId, dto.numeroAFIP);
    const values = { medioId: dto.medioId, numeroAFIP: dto.numeroAFIP, nombre: dto.nombre, domicilio: dto.domicilio };
    const id = await uniqueOr409(this.dialect, duplicateMessage(dto.medioId, dto.numeroAFIP), () =>
      insertResource(this.txHost.tx, PuntoDeVentaEntity, values, this.clock.now()),
    );
    await this.audit.record('punto_de_venta.create', 'punto_de_venta', id, { after: values });
    return PuntoDeVentaDto.of(await this.find(id));
  }

  async list(query: PuntosDeVentaQueryDto): Promise<Page<PuntoDeVentaDto>> {
    const { page, pageSize, skip, take } = pageOf(query);
    const [rows, total] = await this.reads.read((db) => {
      const qb = db.createQueryBuilder(PuntoDeVentaEntity, 'pv');
      if (query.medioId !== undefined) qb.andWhere('pv.medioId = :medioId', { medioId: query.medioId });
      if (query.activo !== undefined) qb.andWhere('pv.activo = :activo', { activo: query.activo });
      const defaultOrder: SortKey[] = [
        { field: 'medioId', direction: 'ASC' },
        { field: 'numeroAFIP', direction: 'ASC' },
      ];
      return applySort(qb, 'pv', query.sort, PUNTO_DE_VENTA_SORT_FIELDS, defaultOrder).skip(skip).take(take).getManyAndCount();
    });
    return { items: rows.map((r) => PuntoDeVentaDto.of(r)), total, page, pageSize };
  }

  async listOfMedio(medioId: number, query: MedioPuntosDeVentaQueryDto = {}): Promise<PuntoDeVentaDto[]> {
    await this.medios.requireExisting(medioId);
    const where = query.activo === undefined ? { medioId } : { medioId, activo: query.activo };
    const rows = await this.txHost.tx.find(PuntoDeVentaEntity, { where, order: { numeroAFIP: 'ASC' } });
    return rows.map((r) => PuntoDeVentaDto.of(r));
  }

  async get(id: number): Promise<PuntoDeVentaDto> {
    return PuntoDeVentaDto.of(await this.find(id));
  }

  async lookup(query: PuntoDeVentaLookupDto): Promise<PuntoDeVentaDto> {
    const row = await this.txHost.tx.findOneBy(PuntoDeVentaEntity, { medioId: query.medioId, numeroAFIP: query.numeroAFIP });
    if (!row) throw new DomainError('no_encontrado', `El medio ${query.medioId} no tiene un punto de venta ${query.numeroAFIP}`);
    return PuntoDeVentaDto.of(row);
  }

  async update(id: number, dto: UpdatePuntoDeVentaDto): Promise<PuntoDeVentaDto> {
    const pdv = await this.lock(id);
    const edited = await this.edits.apply({
      entity: PuntoDeVentaEntity,
      row: pdv,
      changes: { numeroAFIP: dto.numeroAFIP, nombre: dto.nombre, domicilio: dto.domicilio },
      resource: 'punto_de_venta',
      // only a change that would write needs an active medio: a repeat answers the point of sale as it is
      check: async () => {
        await this.medios.requireActive(pdv.medioId);
        if (dto.numeroAFIP !== pdv.numeroAFIP) await this.ensureNumeroFree(pdv.medioId, dto.numeroAFIP, id);
      },
      write: (changes) =>
        uniqueOr409(this.dialect, duplicateMessage(pdv.medioId, dto.numeroAFIP), () => this.versions.update(PuntoDeVentaEntity, { id }, changes)),
    });
    return PuntoDeVentaDto.of(edited);
  }

  deactivate(id: number): Promise<PuntoDeVentaDto> {
    return this.setActivo(id, false);
  }

  /**
   * An active point of sale needs an active medio, as when it was created (409 `medio_inactivo`);
   * deactivating one under an inactive medio stays allowed, as it only takes it further out of use.
   */
  reactivate(id: number): Promise<PuntoDeVentaDto> {
    return this.setActivo(id, true);
  }

  private async setActivo(id: number, activo: boolean): Promise<PuntoDeVentaDto> {
    const pdv = await this.lock(id);
    const check = activo ? async () => void (await this.medios.requireActive(pdv.medioId)) : undefined;
    return PuntoDeVentaDto.of(await this.activation.set({ entity: PuntoDeVentaEntity, row: pdv, activo, resource: 'punto_de_venta', check }));
  }

  /** The friendly 409; the unique constraint (medio_id, numero_afip) is the guarantee under races. */
  private async ensureNumeroFree(medioId: number, numeroAFIP: number, exceptId?: number): Promise<void> {
    const where: FindOptionsWhere<PuntoDeVentaEntity> = { medioId, numeroAFIP };
    if (exceptId !== undefined) where.id = Not(exceptId);
    if (await this.txHost.tx.existsBy(PuntoDeVentaEntity, where)) throw new DomainError('duplicado', duplicateMessage(medioId, numeroAFIP));
  }

  private lock(id: number): Promise<PuntoDeVentaEntity> {
    return findResource(this.txHost.tx, PuntoDeVentaEntity, 'Punto de venta', id, 'pessimistic_write');
  }

  private find(id: number): Promise<PuntoDeVentaEntity> {
    return findResource(this.txHost.tx, PuntoDeVentaEntity, 'Punto de venta', id);
  }
}

function duplicateMessage(medioId: number, numeroAFIP: number): string {
  return `El medio ${medioId} ya tiene un punto de venta con numeroAFIP ${numeroAFIP}`;
}
