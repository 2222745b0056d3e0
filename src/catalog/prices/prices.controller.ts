import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../../common/http/created.decorator.js';
import { Authenticated, RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import { PathId } from '../../common/validation/path-id.js';
import { AddPriceDto, AddPriceResponseDto, PriceDto, VigenteQueryDto } from './dto/price.dto.js';
import { PricesService } from './prices.service.js';
import { PERMISSIONS } from '../../auth/permissions.js';

/** A product's price history: reads with any valid token, appends with `catalogo:productos:gestionar`. No update or delete exists. */
@ApiTags('prices')
@Controller('api/v1')
export class PricesController {
  constructor(private readonly prices: PricesService) {}

  @Get('products/:id/prices')
  @Authenticated()
  @ApiOperation({
    operationId: 'listProductPrices',
    summary: "List a product's prices",
    description: 'Newest `fechaVigencia` first; an empty list is valid. 404 when the product does not exist. Needs a valid access token.',
  })
  @ApiOkResponse({ type: [PriceDto] })
  @ApiErrors(400, 404)
  list(@PathId() id: number): Promise<PriceDto[]> {
    return this.prices.list(id);
  }

  // Declared before `prices/:priceId` so the static segment is never read as an id.
  @Get('products/:id/prices/vigente')
  @Authenticated()
  @ApiOperation({
    operationId: 'getVigenteProductPrice',
    summary: 'The price that applies on a date',
    description:
      'The latest price dated on or before `fecha` (default: today in America/Argentina/Buenos_Aires). 404 `sin_precio_vigente` when none applies; 404 `no_encontrado` when the product does not exist. Needs a valid access token.',
  })
  @ApiOkResponse({ type: PriceDto })
  @ApiErrors(
    [400, '`fecha` is not exactly yyyy-MM-dd or not a real date (`validacion`).'],
    [404, 'Unknown product (`no_encontrado`) or no price applies (`sin_precio_vigente`).'],
  )
  vigente(@PathId() id: number, @Query() query: VigenteQueryDto): Promise<PriceDto> {
    return this.prices.vigente(id, query.fecha);
  }

  @Get('products/:id/prices/:priceId')
  @Authenticated()
  @ApiOperation({
    operationId: 'getProductPrice',
    summary: 'Get one price',
    description:
      "One price of the product (the `Location` of an add). A price read through another product's path is 404. Needs a valid access token.",
  })
  @ApiOkResponse({ type: PriceDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number, @PathId('priceId') priceId: number): Promise<PriceDto> {
    return this.prices.get(id, priceId);
  }

  @Post('admin/products/:id/prices')
  @RequirePermission(PERMISSIONS.productos.gestionar)
  @ApiOperation({
    operationId: 'addProductPrice',
    summary: 'Add a price',
    description:
      '`fechaVigencia` must be on or after today in America/Argentina/Buenos_Aires (else 400) and strictly after every existing date of the product (else 409 `precio_no_posterior`; of two concurrent adds for one product at most one succeeds: one that another add overtook while it was in flight is that 409 whatever its date). `monto` is a JSON number > 0 with at most 2 decimals. Transactional with the audit event `producto.precio_add` (targetType `producto`, targetId the product id).',
  })
  @Created(
    AddPriceResponseDto,
    (price) => `/api/v1/products/${price.productId}/prices/${price.id}`,
    'Added; `Location` is `/api/v1/products/{id}/prices/{priceId}`.',
  )
  @ApiErrors(400, 404, [409, 'Not after the existing history (`precio_no_posterior`).'])
  add(@PathId() id: number, @Body() dto: AddPriceDto): Promise<AddPriceResponseDto> {
    return this.prices.add(id, dto);
  }
}
