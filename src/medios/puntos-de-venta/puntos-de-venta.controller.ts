import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../../common/http/created.decorator.js';
import { RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { type Page, PageOf } from '../../common/pagination/page.js';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import {
  CreatePuntoDeVentaDto,
  MedioPuntosDeVentaQueryDto,
  PuntoDeVentaDto,
  PuntoDeVentaLookupDto,
  PuntosDeVentaQueryDto,
  UpdatePuntoDeVentaDto,
} from './dto/punto-de-venta.dto.js';
import { PuntosDeVentaService } from './puntos-de-venta.service.js';
import { PathId } from '../../common/validation/path-id.js';
import { byId, Versioned } from '../../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../../auth/permissions.js';

/** The eight operations of puntos de venta (docs/api.md); one of them lives under /medios/{medioId}. */

/** If-Match of its changes: the version of its row, the representation of its GET. */
const PUNTO_DE_VENTA = byId('puntos_de_venta', PuntosDeVentaService, (s, id) => s.get(id));
@ApiTags('puntos de venta')
@RequirePermission(PERMISSIONS.puntosDeVenta.gestionar)
@Controller('api/v1/admin')
export class PuntosDeVentaController {
  constructor(private readonly puntos: PuntosDeVentaService) {}

  @Post('puntos-de-venta')
  @Versioned(PUNTO_DE_VENTA)
  @ApiOperation({
    operationId: 'createPuntoDeVenta',
    summary: 'Create a point of sale',
    description:
      'Under an existing (404) and active (409 `medio_inactivo`) medio. `numeroAFIP` (1..99999) is unique within the medio (409 `duplicado`). Audited as `punto_de_venta.create`.',
  })
  @Created(PuntoDeVentaDto, (pdv) => `/api/v1/admin/puntos-de-venta/${pdv.id}`, 'Created; `Location` points at the point of sale.')
  @ApiErrors(
    400,
    [404, 'The medio does not exist (`no_encontrado`).'],
    [409, 'numeroAFIP taken in the medio (`duplicado`) or the medio is inactive (`medio_inactivo`).'],
  )
  create(@Body() dto: CreatePuntoDeVentaDto): Promise<PuntoDeVentaDto> {
    return this.puntos.create(dto);
  }

  @Get('puntos-de-venta')
  @ApiOperation({
    operationId: 'listPuntosDeVenta',
    summary: 'List points of sale (paged)',
    description: 'Ordered by medioId and numeroAFIP; `medioId` and `activo` filter.',
  })
  @ApiOkResponse({ type: PageOf(PuntoDeVentaDto) })
  @ApiErrors(400)
  list(@Query() query: PuntosDeVentaQueryDto): Promise<Page<PuntoDeVentaDto>> {
    return this.puntos.list(query);
  }

  // declared before ':id' so the static segment is never read as an id
  @Get('puntos-de-venta/lookup')
  @Versioned(PUNTO_DE_VENTA)
  @ApiOperation({
    operationId: 'lookupPuntoDeVenta',
    summary: 'Find a point of sale by medio and AFIP number',
    description:
      'The point of sale (active or not) with that `numeroAFIP` in that medio, or 404; its `ETag` is the one `GET /admin/puntos-de-venta/{id}` answers.',
  })
  @ApiOkResponse({ type: PuntoDeVentaDto })
  @ApiErrors(400, 404)
  lookup(@Query() query: PuntoDeVentaLookupDto): Promise<PuntoDeVentaDto> {
    return this.puntos.lookup(query);
  }

  @Get('puntos-de-venta/:id')
  @Versioned(PUNTO_DE_VENTA)
  @ApiOperation({ operationId: 'getPuntoDeVenta', summary: 'Get a point of sale', description: 'One point of sale, active or not.' })
  @ApiOkResponse({ type: PuntoDeVentaDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<PuntoDeVentaDto> {
    return this.puntos.get(id);
  }

  @Put('puntos-de-venta/:id')
  @Versioned(PUNTO_DE_VENTA, 'change')
  @ApiOperation({
    operationId: 'updatePuntoDeVenta',
    summary: 'Update a point of sale',
    description:
      'Replaces `numeroAFIP`, `nombre` and `domicilio`; an inactive point of sale may be updated. 409 `medio_inactivo` while its medio is inactive (unless the values are those it has: 200, nothing written), 409 `duplicado` for a numeroAFIP taken in the medio. `medioId` is immutable (400 `campo_inmutable`). Audited as `punto_de_venta.update`.',
  })
  @ApiOkResponse({ type: PuntoDeVentaDto })
  @ApiErrors([400, 'Validation failure (`validacion`) or an immutable field in the body (`campo_inmutable`).'], 404, [
    409,
    'numeroAFIP taken in the medio (`duplicado`) or the medio is inactive (`medio_inactivo`).',
  ])
  update(@PathId() id: number, @Body() dto: UpdatePuntoDeVentaDto): Promise<PuntoDeVentaDto> {
    return this.puntos.update(id, dto);
  }

  @Post('puntos-de-venta/:id/deactivate')
  @Versioned(PUNTO_DE_VENTA, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivatePuntoDeVenta',
    summary: 'Deactivate a point of sale',
    description: 'Idempotent (a repeat answers 200 and writes no audit event). Audited as `punto_de_venta.deactivate`.',
  })
  @ApiOkResponse({ type: PuntoDeVentaDto })
  @ApiErrors(400, 404)
  deactivate(@PathId() id: number): Promise<PuntoDeVentaDto> {
    return this.puntos.deactivate(id);
  }

  @Post('puntos-de-venta/:id/reactivate')
  @Versioned(PUNTO_DE_VENTA, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivatePuntoDeVenta',
    summary: 'Reactivate a point of sale',
    description:
      'Idempotent (a repeat answers 200 and writes no audit event, even while its medio is inactive). Otherwise 409 `medio_inactivo` while its medio is inactive: reactivate the medio first. Audited as `punto_de_venta.reactivate`.',
  })
  @ApiOkResponse({ type: PuntoDeVentaDto })
  @ApiErrors(400, 404, [409, 'The medio is inactive (`medio_inactivo`).'])
  reactivate(@PathId() id: number): Promise<PuntoDeVentaDto> {
    return this.puntos.reactivate(id);
  }

  @Get('medios/:medioId/puntos-de-venta')
  @ApiOperation({
    operationId: 'listMedioPuntosDeVenta',
    summary: 'Points of sale of a medio',
    description:
      'The points of sale of the medio, ordered by numeroAFIP: active and inactive alike unless `activo` is given; 404 when the medio does not exist. An unknown query parameter is 400.',
  })
  @ApiOkResponse({ type: [PuntoDeVentaDto] })
  @ApiErrors(400, [404, 'The medio does not exist (`no_encontrado`).'])
  listOfMedio(@PathId('medioId') medioId: number, @Query() query: MedioPuntosDeVentaQueryDto): Promise<PuntoDeVentaDto[]> {
    return this.puntos.listOfMedio(medioId, query);
  }
}
