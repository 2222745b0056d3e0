import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { CreateMedioDto, MedioDto, MediosQueryDto, UpdateMedioDto } from './dto/medio.dto.js';
import { MediosService } from './medios.service.js';
import { PathId } from '../common/validation/path-id.js';
import { byId, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../auth/permissions.js';

/** If-Match of its changes: the version of its row, the representation of its GET. */
const MEDIO = byId('medios', MediosService, (s, id) => s.get(id));
@ApiTags('medios')
@RequirePermission(PERMISSIONS.medios.gestionar)
@Controller('api/v1/admin/medios')
export class MediosController {
  constructor(private readonly medios: MediosService) {}

  @Post()
  @Versioned(MEDIO)
  @ApiOperation({
    operationId: 'createMedio',
    summary: 'Create a medio',
    description: '`codigo` is 1..20 characters of [A-Z0-9_], unique globally (409 `duplicado`, inactive medios included). Audited as `medio.create`.',
  })
  @Created(MedioDto, (medio) => `/api/v1/admin/medios/${medio.id}`, 'Created; `Location` points at the medio.')
  @ApiErrors(400, [409, 'The codigo is taken (`duplicado`).'])
  create(@Body() dto: CreateMedioDto): Promise<MedioDto> {
    return this.medios.create(dto);
  }

  @Get()
  @ApiOperation({ operationId: 'listMedios', summary: 'List medios', description: 'Every medio ordered by codigo; `activo` filters by state.' })
  @ApiOkResponse({ type: [MedioDto] })
  @ApiErrors(400)
  list(@Query() query: MediosQueryDto): Promise<MedioDto[]> {
    return this.medios.list(query);
  }

  @Get(':id')
  @Versioned(MEDIO)
  @ApiOperation({ operationId: 'getMedio', summary: 'Get a medio', description: 'One medio, active or not.' })
  @ApiOkResponse({ type: MedioDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<MedioDto> {
    return this.medios.get(id);
  }

  @Put(':id')
  @Versioned(MEDIO, 'change')
  @ApiOperation({
    operationId: 'updateMedio',
    summary: 'Update a medio',
    description: 'Replaces `nombre`. `codigo` is immutable: a body carrying it is 400 `campo_inmutable`. Audited as `medio.update`.',
  })
  @ApiOkResponse({ type: MedioDto })
  @ApiErrors([400, 'Validation failure (`validacion`) or an immutable field in the body (`campo_inmutable`).'], 404)
  update(@PathId() id: number, @Body() dto: UpdateMedioDto): Promise<MedioDto> {
    return this.medios.update(id, dto);
  }

  @Post(':id/deactivate')
  @Versioned(MEDIO, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateMedio',
    summary: 'Deactivate a medio',
    description: 'Idempotent: deactivating an inactive medio answers 200 and writes no audit event. Audited as `medio.deactivate`.',
  })
  @ApiOkResponse({ type: MedioDto })
  @ApiErrors(400, 404)
  deactivate(@PathId() id: number): Promise<MedioDto> {
    return this.medios.deactivate(id);
  }

  @Post(':id/reactivate')
  @Versioned(MEDIO, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateMedio',
    summary: 'Reactivate a medio',
    description: 'Idempotent: reactivating an active medio answers 200 and writes no audit event. Audited as `medio.reactivate`.',
  })
  @ApiOkResponse({ type: MedioDto })
  @ApiErrors(400, 404)
  reactivate(@PathId() id: number): Promise<MedioDto> {
    return this.medios.reactivate(id);
  }
}
