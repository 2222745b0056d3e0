import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiFiscalErrors } from '../common/swagger/problem.dto.js';
import { PathId } from '../common/validation/path-id.js';
import { FiscalListQueryDto } from './dto/fiscal-query.dto.js';
import { CreateTipoIvaDto, TipoIvaDto, UpdateTipoIvaDto } from './dto/tipo-iva.dto.js';
import { PORCENTAJE, RawDecimalBody } from './raw-decimal.js';
import { TiposIvaService } from './tipos-iva.service.js';
import { byId, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../auth/permissions.js';

const BAD_PORCENTAJE: [number, string] = [
  400,
  '`validacion`: e.g. `porcentaje` not a JSON number from 0 to 100 with at most 2 decimals (`"21"`, `true`, `null`, missing, `1e999`, `21.001`).',
];

/** If-Match of its changes: the version of its row, the representation of its GET. */
const TIPO_IVA = byId('tipos_iva', TiposIvaService, (s, id) => s.get(id));
@ApiTags('fiscal')
@RequirePermission(PERMISSIONS.fiscal.gestionar)
@Controller('api/v1/admin/fiscal/tipos-iva')
export class TiposIvaController {
  constructor(private readonly tipos: TiposIvaService) {}

  @Post()
  @Versioned(TIPO_IVA)
  @RawDecimalBody({ porcentaje: PORCENTAJE })
  @ApiOperation({
    operationId: 'createTipoIva',
    summary: 'Create a tipo de IVA',
    description:
      '`codigo` is the AFIP integer code, unique (409 `duplicado`). `porcentaje` is checked on the raw JSON body before binding. Audited as `tipo_iva.create`.',
  })
  @Created(TipoIvaDto, (tipo) => `/api/v1/admin/fiscal/tipos-iva/${tipo.id}`, 'Created; `Location` points at the tipo de IVA.')
  @ApiFiscalErrors(BAD_PORCENTAJE, 401, 403, [409, 'The codigo is taken (`duplicado`).'])
  create(@Body() dto: CreateTipoIvaDto): Promise<TipoIvaDto> {
    return this.tipos.create(dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listTiposIva',
    summary: 'List tipos de IVA',
    description: 'Every tipo de IVA ordered by codigo; `activo` filters by state.',
  })
  @ApiOkResponse({ type: [TipoIvaDto] })
  @ApiFiscalErrors(400, 401, 403)
  list(@Query() query: FiscalListQueryDto): Promise<TipoIvaDto[]> {
    return this.tipos.list(query);
  }

  @Get(':id')
  @Versioned(TIPO_IVA)
  @ApiOperation({ operationId: 'getTipoIva', summary: 'Get a tipo de IVA', description: 'One tipo de IVA, active or not.' })
  @ApiOkResponse({ type: TipoIvaDto })
  @ApiFiscalErrors(400, 401, 403, 404)
  get(@PathId() id: number): Promise<TipoIvaDto> {
    return this.tipos.get(id);
  }

  @Put(':id')
  @Versioned(TIPO_IVA, 'change')
  @RawDecimalBody({ porcentaje: PORCENTAJE }, UpdateTipoIvaDto)
  @ApiOperation({
    operationId: 'updateTipoIva',
    summary: 'Update a tipo de IVA',
    description: 'Replaces `descripcion` and `porcentaje`; `codigo` is immutable (400 `campo_inmutable`). Audited as `tipo_iva.update`.',
  })
  @ApiOkResponse({ type: TipoIvaDto })
  @ApiFiscalErrors([400, `${BAD_PORCENTAJE[1]} \`campo_inmutable\`: the body carries \`codigo\`.`], 401, 403, 404)
  update(@PathId() id: number, @Body() dto: UpdateTipoIvaDto): Promise<TipoIvaDto> {
    return this.tipos.update(id, dto);
  }

  @Post(':id/deactivate')
  @Versioned(TIPO_IVA, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateTipoIva',
    summary: 'Deactivate a tipo de IVA',
    description: 'Idempotent (a repeat answers 200 and writes no audit event). Audited as `tipo_iva.deactivate`.',
  })
  @ApiOkResponse({ type: TipoIvaDto })
  @ApiFiscalErrors(400, 401, 403, 404)
  deactivate(@PathId() id: number): Promise<TipoIvaDto> {
    return this.tipos.deactivate(id);
  }

  @Post(':id/reactivate')
  @Versioned(TIPO_IVA, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateTipoIva',
    summary: 'Reactivate a tipo de IVA',
    description: 'Idempotent (a repeat answers 200 and writes no audit event). Audited as `tipo_iva.reactivate`.',
  })
  @ApiOkResponse({ type: TipoIvaDto })
  @ApiFiscalErrors(400, 401, 403, 404)
  reactivate(@PathId() id: number): Promise<TipoIvaDto> {
    return this.tipos.reactivate(id);
  }
}
