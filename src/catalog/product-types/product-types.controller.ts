import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../../common/http/created.decorator.js';
import { Authenticated, RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { type Page, PageOf } from '../../common/pagination/page.js';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import { PathId } from '../../common/validation/path-id.js';
import { CreateProductTypeDto, ProductTypeDto, ProductTypesQueryDto, UpdateProductTypeDto } from './dto/product-type.dto.js';
import { ProductTypesService } from './product-types.service.js';
import { byId, Versioned } from '../../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../../auth/permissions.js';

/** Reads under /api/v1/product-types (any valid token), writes under /api/v1/admin/product-types. */

/** If-Match of its changes: the version of its row, the representation of its GET. */
const PRODUCT_TYPE = byId('product_types', ProductTypesService, (s, id) => s.get(id));
@ApiTags('product-types')
@Controller('api/v1')
export class ProductTypesController {
  constructor(private readonly types: ProductTypesService) {}

  @Get('product-types')
  @Authenticated()
  @ApiOperation({
    operationId: 'listProductTypes',
    summary: 'List product types',
    description:
      'Paged, ordered by codigo. `activo` filters by state; `search` matches codigo or nombre, case-insensitively. Needs a valid access token.',
  })
  @ApiOkResponse({ type: PageOf(ProductTypeDto) })
  @ApiErrors(400)
  list(@Query() query: ProductTypesQueryDto): Promise<Page<ProductTypeDto>> {
    return this.types.list(query);
  }

  @Get('product-types/:id')
  @Versioned(PRODUCT_TYPE)
  @Authenticated()
  @ApiOperation({
    operationId: 'getProductType',
    summary: 'Get a product type',
    description: 'One product type, active or not. Needs a valid access token.',
  })
  @ApiOkResponse({ type: ProductTypeDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<ProductTypeDto> {
    return this.types.get(id);
  }

  @Post('admin/product-types')
  @Versioned(PRODUCT_TYPE)
  @RequirePermission(PERMISSIONS.tiposProducto.gestionar)
  @ApiOperation({
    operationId: 'createProductType',
    summary: 'Create a product type',
    description: '`codigo` is 1..20 characters of [A-Z0-9_], unique (409 `duplicado`, inactive ones included). Audited as `tipo_producto.create`.',
  })
  @Created(ProductTypeDto, (type) => `/api/v1/product-types/${type.id}`, 'Created; `Location` is the public read path `/api/v1/product-types/{id}`.')
  @ApiErrors(400, [409, 'The codigo is taken (`duplicado`).'])
  create(@Body() dto: CreateProductTypeDto): Promise<ProductTypeDto> {
    return this.types.create(dto);
  }

  @Put('admin/product-types/:id')
  @Versioned(PRODUCT_TYPE, 'change')
  @RequirePermission(PERMISSIONS.tiposProducto.gestionar)
  @ApiOperation({
    operationId: 'updateProductType',
    summary: 'Update a product type',
    description:
      'Replaces `nombre` and, when present, `descripcion`. An inactive product type cannot be updated, even with its current values (409 `tipo_producto_inactivo`). `codigo` is immutable: a body carrying it is 400 `campo_inmutable`. Audited as `tipo_producto.update`.',
  })
  @ApiOkResponse({ type: ProductTypeDto })
  @ApiErrors([400, 'Validation failure (`validacion`) or an immutable field in the body (`campo_inmutable`).'], 404, [
    409,
    'The product type is inactive (`tipo_producto_inactivo`).',
  ])
  update(@PathId() id: number, @Body() dto: UpdateProductTypeDto): Promise<ProductTypeDto> {
    return this.types.update(id, dto);
  }

  @Post('admin/product-types/:id/deactivate')
  @Versioned(PRODUCT_TYPE, 'change')
  @RequirePermission(PERMISSIONS.tiposProducto.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateProductType',
    summary: 'Deactivate a product type',
    description:
      'Refused while active products use it (409 `tipo_producto_en_uso`). Idempotent: deactivating an inactive product type answers 200 and writes no audit event. Audited as `tipo_producto.deactivate`.',
  })
  @ApiOkResponse({ type: ProductTypeDto })
  @ApiErrors(400, 404, [409, 'Active products use it (`tipo_producto_en_uso`).'])
  deactivate(@PathId() id: number): Promise<ProductTypeDto> {
    return this.types.deactivate(id);
  }

  @Post('admin/product-types/:id/reactivate')
  @Versioned(PRODUCT_TYPE, 'change')
  @RequirePermission(PERMISSIONS.tiposProducto.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateProductType',
    summary: 'Reactivate a product type',
    description: 'Idempotent: reactivating an active product type answers 200 and writes no audit event. Audited as `tipo_producto.reactivate`.',
  })
  @ApiOkResponse({ type: ProductTypeDto })
  @ApiErrors(400, 404)
  reactivate(@PathId() id: number): Promise<ProductTypeDto> {
    return this.types.reactivate(id);
  }
}
