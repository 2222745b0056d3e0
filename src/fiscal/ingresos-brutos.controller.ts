import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiFiscalErrors } from '../common/swagger/problem.dto.js';
import { PathId } from '../common/validation/path-id.js';
import { FiscalListQueryDto } from './dto/fiscal-query.dto.js';
import { IngresosBrutosBodyDto, IngresosBrutosDto } from './dto/ingresos-brutos.dto.js';
import { IngresosBrutosService } from './ingresos-brutos.service.js';
import { ALICUOTA, RawDecimalBody } from './raw-decimal.js';
import { byId, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../auth/permissions.js';

const BAD_ALICUOTA: [number, string] = [
  400,
  '`validacion`: e.g. `alicuota` not a JSON number from 0 to 100 with at most 4 decimals (`"3.5"`, `true`, `null`, missing, `1e999`, `3.50001`), or an unknown provincia.',
];
const ACTIVE_CLASH: [number, string] = [409, 'Another entry of the provincia is active (`duplicado`).'];

/** If-Match of its changes: the version of its row, the representation of its GET. */
const INGRESOS_BRUTOS = byId('ingresos_brutos', IngresosBrutosService, (s, id) => s.get(id));
@ApiTags('fiscal')
@RequirePermission(PERMISSIONS.fiscal.gestionar)
@Controller('api/v1/admin/fiscal/ingresos-brutos')
export class IngresosBrutosController {
  constructor(private readonly ingresos: IngresosBrutosService) {}

  @Post()
  @Versioned(INGRESOS_BRUTOS)
  @RawDecimalBody({ alicuota: ALICUOTA })
  @ApiOperation({
    operationId: 'createIngresosBrutos',
    summary: 'Create an ingresos brutos entry',
    description:
      'One active entry per provincia (409 `duplicado`). `alicuota` is checked on the raw JSON body before binding. Audited as `ingresos_brutos.create`.',
  })
  @Created(IngresosBrutosDto, (entry) => `/api/v1/admin/fiscal/ingresos-brutos/${entry.id}`, 'Created; `Location` points at the entry.')
  @ApiFiscalErrors(BAD_ALICUOTA, 401, 403, ACTIVE_CLASH)
  create(@Body() dto: IngresosBrutosBodyDto): Promise<IngresosBrutosDto> {
    return this.ingresos.create(dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listIngresosBrutos',
    summary: 'List ingresos brutos entries',
    description: 'Every entry ordered by provincia; `activo` filters by state.',
  })
  @ApiOkResponse({ type: [IngresosBrutosDto] })
  @ApiFiscalErrors(400, 401, 403)
  list(@Query() query: FiscalListQueryDto): Promise<IngresosBrutosDto[]> {
    return this.ingresos.list(query);
  }

  @Get(':id')
  @Versioned(INGRESOS_BRUTOS)
  @ApiOperation({ operationId: 'getIngresosBrutos', summary: 'Get an ingresos brutos entry', description: 'One entry, active or not.' })
  @ApiOkResponse({ type: IngresosBrutosDto })
  @ApiFiscalErrors(400, 401, 403, 404)
  get(@PathId() id: number): Promise<IngresosBrutosDto> {
    return this.ingresos.get(id);
  }

  @Put(':id')
  @Versioned(INGRESOS_BRUTOS, 'change')
  @RawDecimalBody({ alicuota: ALICUOTA })
  @ApiOperation({
    operationId: 'updateIngresosBrutos',
    summary: 'Update an ingresos brutos entry',
    description:
      'Replaces `provincia`, `descripcion` and `alicuota`; moving an active entry to a provincia with another active entry is 409 `duplicado`. Audited as `ingresos_brutos.update`.',
  })
  @ApiOkResponse({ type: IngresosBrutosDto })
  @ApiFiscalErrors(BAD_ALICUOTA, 401, 403, 404, ACTIVE_CLASH)
  update(@PathId() id: number, @Body() dto: IngresosBrutosBodyDto): Promise<IngresosBrutosDto> {
    return this.ingresos.update(id, dto);
  }

  @Post(':id/deactivate')
  @Versioned(INGRESOS_BRUTOS, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateIngresosBrutos',
    summary: 'Deactivate an ingresos brutos entry',
    description: 'Idempotent (a repeat answers 200 and writes no audit event). Audited as `ingresos_brutos.deactivate`.',
  })
  @ApiOkResponse({ type: IngresosBrutosDto })
  @ApiFiscalErrors(400, 401, 403, 404)
  deactivate(@PathId() id: number): Promise<IngresosBrutosDto> {
    return this.ingresos.deactivate(id);
  }

  @Post(':id/reactivate')
  @Versioned(INGRESOS_BRUTOS, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateIngresosBrutos',
    summary: 'Reactivate an ingresos brutos entry',
    description:
      'Idempotent (a repeat answers 200 and writes no audit event); 409 `duplicado` while another entry of the provincia is active. Audited as `ingresos_brutos.reactivate`.',
  })
  @ApiOkResponse({ type: IngresosBrutosDto })
  @ApiFiscalErrors(400, 401, 403, 404, ACTIVE_CLASH)
  reactivate(@PathId() id: number): Promise<IngresosBrutosDto> {
    return this.ingresos.reactivate(id);
  }
}
