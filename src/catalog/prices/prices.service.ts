import { Inject, Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { AuditService } from '../../audit/audit.service.js';
import { Clock } from '../../common/context/clock.js';
import { DomainError, NotFoundError, ValidationFailedError } from '../../common/errors/domain-error.js';
import { SQL_DIALECT, type SqlDialect } from '../../database/dialects/index.js';
import { ProductsService } from '../products/products.service.js';
import { uniqueOr409 } from '../../common/errors/unique-or-409.js';
import { type AddPriceDto, type AddPriceResponseDto, PriceDto } from './dto/price.dto.js';
import { ProductPriceEntity } from './product-price.entity.js';
import { todayInArgentina } from './price-rules.js';

/**
 * The forward-only price history of a product. Append-only: there is no update or
 * delete. Adding a price locks the product row for the rest of the transaction, so of two
 * concurrent adds the second sees the first one's date (and the unique (product, date) index backs
 * it up).
 */
@Injectable()
export class PricesService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly products: ProductsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    @Inject(SQL_DIALECT) private readonly dialect: SqlDialect,
  ) {}

  /** Newest `fechaVigencia` first; an empty history is a valid answer; 404 for an unknown product. */
  async list(productId: number): Promise<PriceDto[]> {
    await this.products.requireExisting(productId);
    const rows = await this.txHost.tx.find(ProductPriceEntity, { where: { productId }, order: { fechaVigencia: 'DESC', id: 'DESC' } });
    return rows.map((r) => PriceDto.of(r));
  }

  /** One price, only through its own product's path. */
  async get(productId: number, priceId: number): Promise<PriceDto> {
    await this.products.requireExisting(productId);
    const price = await this.txHost.tx.findOneBy(ProductPriceEntity, { id: priceId, productId });
    if (!price) throw new NotFoundError('Precio', priceId);
    return PriceDto.of(price);
  }

  /** The price that applies on `fecha` (default: today in Argentina): the latest dated on or before it. */
  async vigente(productId: number, fecha: string | undefined): Promise<PriceDto> {
    await this.products.requireExisting(productId);
    const on = fecha ?? todayInArgentina(this.clock.now());
    const price = await this.txHost.tx
      .createQueryBuilder(ProductPriceEntity, 'p')
      .where('p.productId = :productId', { productId })
      .andWhere('p.fechaVigencia <= :on', { on })
      .orderBy('p.fechaVigencia', 'DESC')
      .limit(1)
      .getOne();
    if (!price) throw new DomainError('sin_precio_vigente', `El producto ${productId} no tiene un precio vigente el ${on}`);
    return PriceDto.of(price);
  }

  /**
   * Of two adds for one product that overlap in time, at most one succeeds, whatever their dates:
   * the product's newest price is read as the add begins and again once the product's row is locked,
   * and a price another add committed in between refuses this one (409 `precio_no_posterior`, nothing
   * written). Each was decided on a history that is no longer the product's; the caller reads the
   * prices again and decides anew.
   */
  async add(productId: number, dto: AddPriceDto): Promise<AddPriceResponseDto> {
    const today = todayInArgentina(this.clock.now());
    if (dto.fechaVigencia < today) {
      throw new ValidationFailedError([
        { field: 'fechaVigencia', message: `fechaVigencia no puede ser anterior a hoy (${today}, America/Argentina/Buenos_Aires)` },
      ]);
    }
    const seen = await this.newest(productId);
    await this.products.requireExisting(productId, true);
    const latest = await this.newest(productId);
    if (latest && latest.id !== seen?.id) {
      throw new DomainError(
        'precio_no_posterior',
        `Otro precio del producto (${latest.fechaVigencia}) se agregó mientras tanto: vuelva a leer los precios y repita`,
      );
    }
    const notLater = `fechaVigencia debe ser posterior a la última fecha de precio del producto${latest ? ` (${latest.fechaVigencia})` : ''}`;
    if (latest && dto.fechaVigencia <= latest.fechaVigencia) throw new DomainError('precio_no_posterior', notLater);

    const id = await uniqueOr409(
      this.dialect,
      notLater,
      async () => {
        const result = await this.txHost.tx.insert(ProductPriceEntity, {
          productId,
          fechaVigencia: dto.fechaVigencia,
          monto: dto.monto,
          createdAt: this.clock.now(),
        });
        return Number(result.identifiers[0]?.id);
      },
      'precio_no_posterior',
    );
    const added = { id, productId, fechaVigencia: dto.fechaVigencia, monto: dto.monto };
    await this.audit.record('producto.precio_add', 'producto', productId, {
      after: { priceId: id, fechaVigencia: dto.fechaVigencia, monto: dto.monto },
    });
    return added;
  }

  /** The product's newest price (latest fechaVigencia), as committed now. */
  private newest(productId: number): Promise<ProductPriceEntity | null> {
    return this.txHost.tx.findOne(ProductPriceEntity, { where: { productId }, order: { fechaVigencia: 'DESC' } });
  }
}
