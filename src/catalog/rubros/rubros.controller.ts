import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../../common/http/created.decorator.js';
import { RequirePermission } from '../../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../../common/swagger/problem.dto.js';
import { PathId } from '../../common/validation/path-id.js';
import { CreateRubroDto, MoveRubroDto, RubroDto, RubroTreeNodeDto, RubroTreeQueryDto, UpdateRubroDto } from './dto/rubro.dto.js';
import { RubrosService } from './rubros.service.js';
import { byId, Versioned } from '../../common/versioning/versioned.decorator.js';
import { PERMISSIONS } from '../../auth/permissions.js';

/** If-Match of its changes: the version of its row, the representation of its GET. */
const RUBRO = byId('rubros', RubrosService, (s, id) => s.get(id));
@ApiTags('rubros')
@RequirePermission(PERMISSIONS.rubros.gestionar)
@Controller('api/v1/admin/rubros')
export class RubrosController {
  constructor(private readonly rubros: RubrosService) {}

  @Get('tree')
  @ApiOperation({
    operationId: 'getRubroTree',
    summary: 'Read the rubro tree',
    description:
      'The whole tree, nested, read in one query. Each node carries `nivel` (roots are 1) and `tieneAvisos`; siblings are ordered by nombre. Inactive rubros (and what hangs from them) only with `incluirInactivos=true`.',
  })
  @ApiOkResponse({ type: [RubroTreeNodeDto] })
  @ApiErrors(400)
  tree(@Query() query: RubroTreeQueryDto): Promise<RubroTreeNodeDto[]> {
    return this.rubros.tree(query.incluirInactivos ?? false);
  }

  @Get(':id')
  @Versioned(RUBRO)
  @ApiOperation({ operationId: 'getRubro', summary: 'Get a rubro', description: 'One rubro, active or not, with its `nivel` and `tieneAvisos`.' })
  @ApiOkResponse({ type: RubroDto })
  @ApiErrors(400, 404)
  get(@PathId() id: number): Promise<RubroDto> {
    return this.rubros.get(id);
  }

  @Post()
  @Versioned(RUBRO)
  @ApiOperation({
    operationId: 'createRubro',
    summary: 'Create a rubro',
    description:
      'Under `parentId`, or as a root when it is null or absent. The parent must exist (404), be active (409 `rubro_inactivo`) and have no avisos (409 `rubro_con_avisos`: a rubro with avisos is a leaf); the new rubro may not sit below level RUBROS_MAX_DEPTH (409 `profundidad_maxima`); its name must be free among the active siblings, case-insensitively (409 `duplicado`). Audited as `rubro.create`.',
  })
  @Created(RubroDto, (rubro) => `/api/v1/admin/rubros/${rubro.id}`, 'Created; `Location` points at the rubro.')
  @ApiErrors(
    400,
    [404, 'The parent rubro does not exist (`no_encontrado`).'],
    [409, '`rubro_inactivo`, `rubro_con_avisos`, `profundidad_maxima` or `duplicado`.'],
  )
  create(@Body() dto: CreateRubroDto): Promise<RubroDto> {
    return this.rubros.create(dto);
  }

  @Put(':id')
  @Versioned(RUBRO, 'change')
  @ApiOperation({
    operationId: 'updateRubro',
    summary: 'Rename a rubro',
    description:
      'Replaces `nombre`; it must be free among the active siblings, case-insensitively (409 `duplicado`). Use `/move` to change the parent. Audited as `rubro.update`.',
  })
  @ApiOkResponse({ type: RubroDto })
  @ApiErrors(400, 404, [409, 'The name is taken among the active siblings (`duplicado`).'])
  update(@PathId() id: number, @Body() dto: UpdateRubroDto): Promise<RubroDto> {
    return this.rubros.update(id, dto);
  }

  @Post(':id/move')
  @Versioned(RUBRO, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'moveRubro',
    summary: 'Move a rubro',
    description:
      "Moves the rubro with its whole subtree under `parentId` (null: it becomes a root). 409 `movimiento_invalido` under itself or a descendant; `rubro_inactivo` under an inactive parent; `rubro_con_avisos` under a rubro with avisos; `profundidad_maxima` when any node of the moved subtree would sit below level RUBROS_MAX_DEPTH (the subtree's height counts); `duplicado` when an active sibling there has the same name. Moving to the current parent changes nothing. Audited as `rubro.move` with `{before: {parentId}, after: {parentId}}`.",
  })
  @ApiOkResponse({ type: RubroDto })
  @ApiErrors(
    400,
    [404, 'The rubro or the new parent does not exist (`no_encontrado`).'],
    [409, '`movimiento_invalido`, `rubro_inactivo`, `rubro_con_avisos`, `profundidad_maxima` or `duplicado`.'],
  )
  move(@PathId() id: number, @Body() dto: MoveRubroDto): Promise<RubroDto> {
    return this.rubros.move(id, dto);
  }

  @Post(':id/deactivate')
  @Versioned(RUBRO, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateRubro',
    summary: 'Deactivate a rubro',
    description:
      'Checks, in this order: no active child rubro (409 `rubro_con_hijos_activos`), then no active product in it (409 `rubro_con_productos_activos`). Idempotent: deactivating an inactive rubro answers 200 and writes no audit event. Audited as `rubro.deactivate`.',
  })
  @ApiOkResponse({ type: RubroDto })
  @ApiErrors(400, 404, [409, '`rubro_con_hijos_activos` or `rubro_con_productos_activos`.'])
  deactivate(@PathId() id: number): Promise<RubroDto> {
    return this.rubros.deactivate(id);
  }

  @Post(':id/reactivate')
  @Versioned(RUBRO, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateRubro',
    summary: 'Reactivate a rubro',
    description:
      'The parent must be active (409 `rubro_inactivo`) and may hold children (a rubro with avisos is a leaf: 409 `rubro_con_avisos`), and no active sibling may have the same name (409 `duplicado`). Idempotent: reactivating an active rubro answers 200 and writes no audit event. Audited as `rubro.reactivate`.',
  })
  @ApiOkResponse({ type: RubroDto })
  @ApiErrors(400, 404, [409, '`rubro_inactivo`, `rubro_con_avisos` or `duplicado`.'])
  reactivate(@PathId() id: number): Promise<RubroDto> {
    return this.rubros.reactivate(id);
  }
}
