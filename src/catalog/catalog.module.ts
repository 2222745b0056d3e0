import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PricesController } from './prices/prices.controller.js';
import { PricesService } from './prices/prices.service.js';
import { ProductPriceEntity } from './prices/product-price.entity.js';
import { ProductTypeEntity } from './product-types/product-type.entity.js';
import { ProductTypesController } from './product-types/product-types.controller.js';
import { ProductTypesService } from './product-types/product-types.service.js';
import { ProductEntity } from './products/product.entity.js';
import { ProductsController } from './products/products.controller.js';
import { ProductsService } from './products/products.service.js';
import { RubroEntity } from './rubros/rubro.entity.js';
import { RubrosController } from './rubros/rubros.controller.js';
import { RubrosRepository } from './rubros/rubros.repository.js';
import { RubrosService } from './rubros/rubros.service.js';

/** The catalog: the rubro tree, product types, products and their forward-only prices. */
@Module({
  imports: [TypeOrmModule.forFeature([RubroEntity, ProductTypeEntity, ProductEntity, ProductPriceEntity])],
  controllers: [RubrosController, ProductTypesController, ProductsController, PricesController],
  providers: [RubrosRepository, RubrosService, ProductTypesService, ProductsService, PricesService],
})
export class CatalogModule {}
