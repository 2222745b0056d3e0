import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Activation } from '../../common/activation/activation.js';
import { Edits } from '../../common/activation/edits.js';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { type Page, pageOf } from '../../common/pagination/page.js';
import { containsAny } from '../../common/pagination/search.js';
import { applySort } from '../../common/pagination/sort.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { containsPattern } from '../catalog.rules.js';
import { ProductEntity } from '../products/product.entity.js';
import { uniqueOr409 } from '../../common/errors/unique-or-409.js';
import {
  type CreateProductTypeDto,
  PRODUCT_TYPE_SORT_FIELDS,
  ProductTypeDto,
  type ProductTypesQueryDto,
  type UpdateProductTypeDto,
} from './dto/product-type.dto.js';
import { ProductTypeEntity } from './product-type.entity.js';
import { ReplicaReads } from '../../database/replica-reads.js';
import { findResource, insertResource, type RowLock } from '../../database/resource-row.js';

/**
 * Product types. The four domain errors: 404 `no_encontrado`, 409 `duplicado`
 * (codigo), 409 `tipo_producto_inactivo` (update of an inactive one), 409 `tipo_producto_en_uso`
 * (deactivate while active products use it).
 */
@Injectable()
export class ProductTypesService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: ReplicaReads,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async list(query: ProductTypesQueryDto): Promise<Page<ProductTypeDto>> {
    const { page, pageSize, skip, take } = pageOf(query);
    const [rows, total] = await this.reads.read((db) => {
      const qb = db.createQueryBuilder(ProductTypeEntity, 't');
      if (query.activo !== undefined) qb.andWhere('t.activo = :activo', { activo: query.activo });
      if (query.search) {
        qb.andWhere(containsAny(['t.codigo', 't.nombre']), { pattern: containsPattern(query.search) });
      }
      return applySort(qb, 't', query.sort, PRODUCT_TYPE_SORT_FIELDS, [{ field: 'codigo', direction: 'ASC' }])
        .skip(skip)
        .take(take)
        .getManyAndCount();
    });
    return { items: rows.map((r) => ProductTypeDto.of(r)), total, page, pageSize };
  }

  async get(id: number): Promise<ProductTypeDto> {
    return ProductTypeDto.of(await this.find(id));
  }

  async create(dto: CreateProductTypeDto): Promise<ProductTypeDto> {
    const tx = this.txHost.tx;
    const duplicate = `Ya existe un tipo de producto con codigo ${dto.codigo}`;
    if (await tx.existsBy(ProductTypeEntity, { codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const values = { codigo: dto.codigo, nombre: dto.nombre, descripcion: dto.descripcion ?? '' };
    const id = await uniqueOr409(this.dialect, duplicate, () => insertResource(tx, ProductTypeEntity, values, this.clock.now()));
    await this.audit.record('tipo_producto.create', 'tipo_producto', id, { after: values });
    return this.get(id);
  }

  async update(id: number, dto: UpdateProductTypeDto): Promise<ProductTypeDto> {
    const type = await this.lock(id, 'pessimistic_write');
    if (!type.activo) throw new DomainError('tipo_producto_inactivo', `El tipo de producto ${id} está inactivo`);
    const changes = { nombre: dto.nombre, descripcion: dto.descripcion };
    return ProductTypeDto.of(await this.edits.apply({ entity: ProductTypeEntity, row: type, changes, resource: 'tipo_producto' }));
  }

  async deactivate(id: number): Promise<ProductTypeDto> {
    const type = await this.lock(id, 'pessimistic_write');
    const check = async () => {
      if (await this.txHost.tx.existsBy(ProductEntity, { productTypeId: id, activo: true })) {
        throw new DomainError('tipo_producto_en_uso', `El tipo de producto ${id} está en uso por productos activos`);
      }
    };
    return ProductTypeDto.of(await this.activation.set({ entity: ProductTypeEntity, row: type, activo: false, resource: 'tipo_producto', check }));
  }

  async reactivate(id: number): Promise<ProductTypeDto> {
    const type = await this.lock(id, 'pessimistic_write');
    return ProductTypeDto.of(await this.activation.set({ entity: ProductTypeEntity, row: type, activo: true, resource: 'tipo_producto' }));
  }

  /**
   * For products: the type exists (404) and is active (409 `tipo_producto_inactivo`). It stays
   * share-locked until the request's transaction ends, so a concurrent deactivation waits.
   */
  async requireActiveForProduct(id: number): Promise<void> {
    const type = await this.lock(id, 'pessimistic_read');
    if (!type.activo) throw new DomainError('tipo_producto_inactivo', `El tipo de producto ${id} está inactivo`);
  }

  private find(id: number): Promise<ProductTypeEntity> {
    return findResource(this.txHost.tx, ProductTypeEntity, 'Tipo de producto', id);
  }

  private lock(id: number, mode: RowLock): Promise<ProductTypeEntity> {
    return findResource(this.txHost.tx, ProductTypeEntity, 'Tipo de producto', id, mode);
  }
}
