import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Activation } from '../../common/activation/activation.js';
import { Edits } from '../../common/activation/edits.js';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError, NotFoundError } from '../../common/errors/domain-error.js';
import { type Page, pageOf } from '../../common/pagination/page.js';
import { containsAny } from '../../common/pagination/search.js';
import { applySort } from '../../common/pagination/sort.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { containsPattern } from '../catalog.rules.js';
import { ProductTypeEntity } from '../product-types/product-type.entity.js';
import { ProductTypesService } from '../product-types/product-types.service.js';
import { RubroEntity } from '../rubros/rubro.entity.js';
import { RubrosService } from '../rubros/rubros.service.js';
import { uniqueOr409 } from '../../common/errors/unique-or-409.js';
import { type CreateProductDto, PRODUCT_SORT_FIELDS, ProductDto, type ProductsQueryDto, type UpdateProductDto } from './dto/product.dto.js';
import { ProductEntity } from './product.entity.js';
import { ReplicaReads } from '../../database/replica-reads.js';
import { findResource, insertResource } from '../../database/resource-row.js';

/**
 * Products: a product references an existing, active rubro and product type. The
 * referenced rows are share-locked for the rest of the request, so their deactivation (which
 * checks for active products) cannot slip in between.
 */
@Injectable()
export class ProductsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly reads: ReplicaReads,
    private readonly rubros: RubrosService,
    private readonly types: ProductTypesService,
    private readonly audit: AuditService,
    private readonly activation: Activation,
    private readonly edits: Edits,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  async list(query: ProductsQueryDto): Promise<Page<ProductDto>> {
    const { page, pageSize, skip, take } = pageOf(query);
    const [rows, total] = await this.reads.read((db) => {
      const qb = db.createQueryBuilder(ProductEntity, 'p');
      if (query.rubroId !== undefined) qb.andWhere('p.rubroId = :rubroId', { rubroId: query.rubroId });
      if (query.productTypeId !== undefined) qb.andWhere('p.productTypeId = :productTypeId', { productTypeId: query.productTypeId });
      if (query.activo !== undefined) qb.andWhere('p.activo = :activo', { activo: query.activo });
      if (query.search) {
        qb.andWhere(containsAny(['p.codigo', 'p.nombre']), { pattern: containsPattern(query.search) });
      }
      return applySort(qb, 'p', query.sort, PRODUCT_SORT_FIELDS, [{ field: 'codigo', direction: 'ASC' }])
        .skip(skip)
        .take(take)
        .getManyAndCount();
    });
    return { items: rows.map((r) => ProductDto.of(r)), total, page, pageSize };
  }

  async get(id: number): Promise<ProductDto> {
    return ProductDto.of(await this.find(id));
  }

  async create(dto: CreateProductDto): Promise<ProductDto> {
    const tx = this.txHost.tx;
    await this.requireActiveReferences(dto.rubroId, dto.productTypeId);
    const duplicate = `Ya existe un producto con codigo ${dto.codigo}`;
    if (await tx.existsBy(ProductEntity, { codigo: dto.codigo })) throw new DomainError('duplicado', duplicate);
    const values = { codigo: dto.codigo, nombre: dto.nombre, rubroId: dto.rubroId, productTypeId: dto.productTypeId };
    const id = await uniqueOr409(this.dialect, duplicate, () => insertResource(tx, ProductEntity, values, this.clock.now()));
    await this.audit.record('producto.create', 'producto', id, { after: values });
    return this.get(id);
  }

  async update(id: number, dto: UpdateProductDto): Promise<ProductDto> {
    const product = await this.lock(id);
    await this.requireExistingReferences(dto.rubroId, dto.productTypeId);
    const changes = { nombre: dto.nombre, rubroId: dto.rubroId, productTypeId: dto.productTypeId };
    // Only a real change is checked (a PUT repeating the record is 200, whatever became of its
    // references). An active product needs active references; an inactive one only those it is
    // given anew: it keeps, and may be renamed in, the rubro or type that was deactivated after it.
    const check = () =>
      this.requireActive(
        product.activo || dto.rubroId !== product.rubroId ? dto.rubroId : undefined,
        product.activo || dto.productTypeId !== product.productTypeId ? dto.productTypeId : undefined,
      );
    return ProductDto.of(await this.edits.apply({ entity: ProductEntity, row: product, changes, resource: 'producto', check }));
  }

  async deactivate(id: number): Promise<ProductDto> {
    const product = await this.lock(id);
    return ProductDto.of(await this.activation.set({ entity: ProductEntity, row: product, activo: false, resource: 'producto' }));
  }

  /** An active product needs an active rubro and product type, as when it was created. */
  async reactivate(id: number): Promise<ProductDto> {
    const product = await this.lock(id);
    const check = () => this.requireActiveReferences(product.rubroId, product.productTypeId);
    return ProductDto.of(await this.activation.set({ entity: ProductEntity, row: product, activo: true, resource: 'producto', check }));
  }

  /** 404 unless the product exists; for the price history. Locked (write) when `forUpdate`. */
  async requireExisting(id: number, forUpdate = false): Promise<void> {
    if (forUpdate) await this.lock(id);
    else await this.find(id);
  }

  /** Missing references are 404 (rubro first); then an inactive rubro, then an inactive product type, are 409. */
  private async requireActiveReferences(rubroId: number, productTypeId: number): Promise<void> {
    await this.requireExistingReferences(rubroId, productTypeId);
    await this.requireActive(rubroId, productTypeId);
  }

  /** 404 for a rubro or product type that does not exist. */
  private async requireExistingReferences(rubroId: number, productTypeId: number): Promise<void> {
    const tx = this.txHost.tx;
    if (!(await tx.existsBy(RubroEntity, { id: rubroId }))) throw new NotFoundError('Rubro', rubroId);
    if (!(await tx.existsBy(ProductTypeEntity, { id: productTypeId }))) throw new NotFoundError('Tipo de producto', productTypeId);
  }

  /** 409 for an inactive one of those given; each stays share-locked until the transaction ends. */
  private async requireActive(rubroId: number | undefined, productTypeId: number | undefined): Promise<void> {
    if (rubroId !== undefined) await this.rubros.requireActiveForProduct(rubroId);
    if (productTypeId !== undefined) await this.types.requireActiveForProduct(productTypeId);
  }

  private find(id: number): Promise<ProductEntity> {
    return findResource(this.txHost.tx, ProductEntity, 'Producto', id);
  }

  private lock(id: number): Promise<ProductEntity> {
    return findResource(this.txHost.tx, ProductEntity, 'Producto', id, 'pessimistic_write');
  }
}
