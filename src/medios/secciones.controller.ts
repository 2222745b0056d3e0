import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { CreateSeccionDto, SeccionDto, SeccionesQueryDto, UpdateSeccionDto } from './dto/seccion.dto.js';
import { SeccionesService } from './secciones.service.js';
import { PathId } from '../common/validation/path-id.js';
import { byId, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../auth/permissions.js';

const MEDIO_INACTIVO: [number, string] = [409, 'The parent medio is inactive (`medio_inactivo`).'];

/** If-Match of its changes: the version of its row, the representation of its GET. */
const SECCION = byId('secciones', SeccionesService, (s, id) => s.get(id));
@ApiTags('secciones')
@RequirePermission(PERMISSIONS.medios.gestionar)
@Controller('api/v1/admin/secciones')
export class SeccionesController {
  constructor(private readonly secciones: SeccionesService) {}

  @Post()
  @Versioned(SECCION)
  @ApiOperation({
    operationId: 'createSeccion',
    summary: 'Create a seccion',
    description:
      'Under an existing (404) and active (409 `medio_inactivo`) medio. `codigo` is unique within the medio (409 `duplicado`); another medio may use the same codigo. Audited as `seccion.create`.',
  })
  @Created(SeccionDto, (seccion) => `/api/v1/admin/secciones/${seccion.id}`, 'Created; `Location` points at the seccion.')
  @ApiErrors(
    400,
    [404, 'The medio does not exist (`no_encontrado`).'],
    [409, 'The codigo is taken in the medio (`duplicado`) or the medio is inactive (`medio_inactivo`).'],
  )
  create(@Body() dto: CreateSeccionDto): Promise<SeccionDto> {
    return this.secciones.create(dto);
  }

  @Get()
  @ApiOperation({
    operationId: 'listSecciones',
    summary: 'List secciones',
    description: 'Ordered by medioId and codigo; `medioId` and `activo` filter.',
  })
  @ApiOkResponse({ type: [SeccionDto] })
  @ApiErrors(400)
  list(@Query() query: SeccionesQueryDto): Promise<SeccionDto[]> {
    return this.secciones.list(query);
  }

  @Get(':id')
  @Versioned(SECCION)
  @ApiOperation({ operationId: 'getSeccion', summary: 'Get a seccion', description: 'One seccion, active or not.' })
  @ApiOkResponse({ type: SeccionDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<SeccionDto> {
    return this.secciones.get(id);
  }

  @Put(':id')
  @Versioned(SECCION, 'change')
  @ApiOperation({
    operationId: 'updateSeccion',
    summary: 'Update a seccion',
    description:
      'Replaces `nombre` and `tipo`. `medioId` and `codigo` are immutable (400 `campo_inmutable`). 409 `medio_inactivo` while the medio is inactive, unless the values are those it has (200, nothing written). Audited as `seccion.update`.',
  })
  @ApiOkResponse({ type: SeccionDto })
  @ApiErrors([400, 'Validation failure (`validacion`) or an immutable field in the body (`campo_inmutable`).'], 404, MEDIO_INACTIVO)
  update(@PathId() id: number, @Body() dto: UpdateSeccionDto): Promise<SeccionDto> {
    return this.secciones.update(id, dto);
  }

  @Post(':id/deactivate')
  @Versioned(SECCION, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateSeccion',
    summary: 'Deactivate a seccion',
    description:
      'Idempotent (a repeat answers 200 and writes no audit event, even while the medio is inactive). Otherwise 409 `medio_inactivo` while the medio is inactive. Audited as `seccion.deactivate`.',
  })
  @ApiOkResponse({ type: SeccionDto })
  @ApiErrors(400, 404, MEDIO_INACTIVO)
  deactivate(@PathId() id: number): Promise<SeccionDto> {
    return this.secciones.deactivate(id);
  }

  @Post(':id/reactivate')
  @Versioned(SECCION, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateSeccion',
    summary: 'Reactivate a seccion',
    description:
      'Idempotent (a repeat answers 200 and writes no audit event, even while the medio is inactive). Otherwise 409 `medio_inactivo` while the medio is inactive. Audited as `seccion.reactivate`.',
  })
  @ApiOkResponse({ type: SeccionDto })
  @ApiErrors(400, 404, MEDIO_INACTIVO)
  reactivate(@PathId() id: number): Promise<SeccionDto> {
    return this.secciones.reactivate(id);
  }
}
