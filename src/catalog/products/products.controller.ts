import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../../common/http/created.decorator.js';
import { Authenticated, RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { type Page, PageOf } from '../../common/pagination/page.js';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import { PathId } from '../../common/validation/path-id.js';
import { CreateProductDto, ProductDto, ProductsQueryDto, UpdateProductDto } from './dto/product.dto.js';
import { ProductsService } from './products.service.js';
import { byId, Versioned } from '../../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../../auth/permissions.js';

/** Reads under /api/v1/products (any valid token), writes under /api/v1/admin/products. */

/** If-Match of its changes: the version of its row, the representation of its GET. */
const PRODUCT = byId('products', ProductsService, (s, id) => s.get(id));
@ApiTags('products')
@Controller('api/v1')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get('products')
  @Authenticated()
  @ApiOperation({
    operationId: 'listProducts',
    summary: 'List products',
    description:
      'Paged, ordered by codigo. Filters: `rubroId`, `productTypeId`, `activo`, and `search` (codigo or nombre, case-insensitive). Needs a valid access token.',
  })
  @ApiOkResponse({ type: PageOf(ProductDto) })
  @ApiErrors(400)
  list(@Query() query: ProductsQueryDto): Promise<Page<ProductDto>> {
    return this.products.list(query);
  }

  @Get('products/:id')
  @Versioned(PRODUCT)
  @Authenticated()
  @ApiOperation({ operationId: 'getProduct', summary: 'Get a product', description: 'One product, active or not. Needs a valid access token.' })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<ProductDto> {
    return this.products.get(id);
  }

  @Post('admin/products')
  @Versioned(PRODUCT)
  @RequirePermission(PERMISSIONS.productos.gestionar)
  @ApiOperation({
    operationId: 'createProduct',
    summary: 'Create a product',
    description:
      'A missing rubro or product type is 404; an inactive rubro 409 `rubro_inactivo`; an inactive product type 409 `tipo_producto_inactivo`; a taken codigo 409 `duplicado` (inactive products included). Audited as `producto.create`.',
  })
  @Created(ProductDto, (product) => `/api/v1/products/${product.id}`, 'Created; `Location` is the public read path `/api/v1/products/{id}`.')
  @ApiErrors(
    400,
    [404, 'The rubro or the product type does not exist (`no_encontrado`).'],
    [409, '`rubro_inactivo`, `tipo_producto_inactivo` or `duplicado`.'],
  )
  create(@Body() dto: CreateProductDto): Promise<ProductDto> {
    return this.products.create(dto);
  }

  @Put('admin/products/:id')
  @Versioned(PRODUCT, 'change')
  @RequirePermission(PERMISSIONS.productos.gestionar)
  @ApiOperation({
    operationId: 'updateProduct',
    summary: 'Update a product',
    description:
      'Replaces `nombre`, `rubroId` and `productTypeId`; the rubro and product type must exist (404) and, for a real change, be active (409 `rubro_inactivo`, 409 `tipo_producto_inactivo`): a PUT repeating the current values is 200 and writes nothing, and an inactive product keeps (and may be renamed in) the inactive rubro or type it was deactivated in, but is not moved to another inactive one. `codigo` is immutable: a body carrying it is 400 `campo_inmutable`. Audited as `producto.update`.',
  })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors(
    [400, 'Validation failure (`validacion`) or an immutable field in the body (`campo_inmutable`).'],
    [404, 'The product, the rubro or the product type does not exist (`no_encontrado`).'],
    [409, '`rubro_inactivo` or `tipo_producto_inactivo`.'],
  )
  update(@PathId() id: number, @Body() dto: UpdateProductDto): Promise<ProductDto> {
    return this.products.update(id, dto);
  }

  @Post('admin/products/:id/deactivate')
  @Versioned(PRODUCT, 'change')
  @RequirePermission(PERMISSIONS.productos.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateProduct',
    summary: 'Deactivate a product',
    description: 'Idempotent: deactivating an inactive product answers 200 and writes no audit event. Audited as `producto.deactivate`.',
  })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors(400, 404)
  deactivate(@PathId() id: number): Promise<ProductDto> {
    return this.products.deactivate(id);
  }

  @Post('admin/products/:id/reactivate')
  @Versioned(PRODUCT, 'change')
  @RequirePermission(PERMISSIONS.productos.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateProduct',
    summary: 'Reactivate a product',
    description:
      'Its rubro and product type must be active (409 `rubro_inactivo`, 409 `tipo_producto_inactivo`). Idempotent: reactivating an active product answers 200 and writes no audit event. Audited as `producto.reactivate`.',
  })
  @ApiOkResponse({ type: ProductDto })
  @ApiErrors(400, 404, [409, '`rubro_inactivo` or `tipo_producto_inactivo`.'])
  reactivate(@PathId() id: number): Promise<ProductDto> {
    return this.products.reactivate(id);
  }
}
