import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { type AuthenticatedUser, CurrentUser } from '../auth/decorators/current-user.decorator.js';
import { RequirePermission, RequirePermissionWithQuery } from '../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { AsOfQueryDto } from './dto/as-of.dto.js';
import { CreateRoleDto, ReplaceRolePermissionsDto, RolDto, RolePermissionsDto, RolesQueryDto, UpdateRoleDto } from './dto/role.dto.js';
import { PathRoleCode } from './role-code.pipe.js';
import { isRoleCode } from './roles.rules.js';
import { RolesService } from './roles.service.js';
import { type VersionedResource, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSION_SET_VERSION } from '../common/versioning/versioned-writes.js';
import { PERMISSIONS } from '../auth/permissions.js';

const BAD_CODE = 'Validation failure (`validacion`), a `{codigo}` that does not match `^[a-z][a-z0-9_]*$` included.';

const byCodigo = (
  read: (roles: RolesService, codigo: string) => Promise<object>,
  versionColumn?: string,
): VersionedResource<RolesService, string> => ({
  table: 'roles',
  versionColumn,
  column: 'codigo',
  param: 'codigo',
  parse: (raw) => (isRoleCode(raw) ? raw : undefined),
  service: RolesService,
  read,
});
/** If-Match of a role's changes: the role's row version; the representation of GET /roles/{codigo}. */
const ROLE = byCodigo((s, codigo) => s.get(codigo));
/** If-Match of the set's replacement: the set's own version; the representation of GET /roles/{codigo}/permisos. */
const ROLE_PERMISOS = byCodigo((s, codigo) => s.permissionsOf(codigo), PERMISSION_SET_VERSION);

/** Reads need `administracion:roles:ver`, writes `administracion:roles:gestionar` (each route says which). */
@ApiTags('roles')
@Controller('api/v1/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @RequirePermission(PERMISSIONS.roles.ver)
  @ApiOperation({
    operationId: 'listRoles',
    summary: 'List roles',
    description: 'Active roles ordered by codigo; `incluirInactivos=true` adds the inactive ones.',
  })
  @ApiOkResponse({ type: [RolDto] })
  @ApiErrors(400)
  list(@Query() query: RolesQueryDto): Promise<RolDto[]> {
    return this.roles.list(query);
  }

  @Post()
  @RequirePermission(PERMISSIONS.roles.gestionar)
  @Versioned(ROLE)
  @ApiOperation({
    operationId: 'createRole',
    summary: 'Create a role',
    description:
      '`codigo` matches `^[a-z][a-z0-9_]*$` and is unique, inactive roles included (409 `duplicado`). The role starts active with no permissions. Audited as `rol.create`.',
  })
  @Created(RolDto, (role) => `/api/v1/roles/${role.codigo}`, 'Created; `Location` points at the role.')
  @ApiErrors(400, [409, 'The codigo is taken, possibly by an inactive role (`duplicado`).'])
  create(@Body() dto: CreateRoleDto): Promise<RolDto> {
    return this.roles.create(dto);
  }

  @Get(':codigo')
  @RequirePermission(PERMISSIONS.roles.ver)
  @Versioned(ROLE)
  @ApiOperation({ operationId: 'getRole', summary: 'Get a role', description: 'One role, active or not.' })
  @ApiOkResponse({ type: RolDto })
  @ApiErrors([400, BAD_CODE], 404)
  get(@PathRoleCode() codigo: string): Promise<RolDto> {
    return this.roles.get(codigo);
  }

  @Put(':codigo')
  @RequirePermission(PERMISSIONS.roles.gestionar)
  @Versioned(ROLE, 'change')
  @ApiOperation({
    operationId: 'updateRole',
    summary: 'Update a role',
    description:
      'Replaces `nombre` (and `descripcion` when given). `codigo` is immutable: a body carrying it is 400 `campo_inmutable`. Audited as `rol.update`.',
  })
  @ApiOkResponse({ type: RolDto })
  @ApiErrors([400, `${BAD_CODE} An immutable field in the body is \`campo_inmutable\`.`], 404)
  update(@PathRoleCode() codigo: string, @Body() dto: UpdateRoleDto): Promise<RolDto> {
    return this.roles.update(codigo, dto);
  }

  @Delete(':codigo')
  @RequirePermission(PERMISSIONS.roles.gestionar)
  @Versioned(ROLE, 'change')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deactivateRole',
    summary: 'Deactivate a role (soft delete)',
    description:
      'Refused with 409 `rol_en_uso` while an active user holds the role. Idempotent: deleting an inactive role answers 204 and writes no event. Audited as `rol.deactivate`. ' +
      "Delegation rule: deactivating takes the role's permissions away from its holders, as emptying its set would, so every effective permission of each holder (active or not) must be among the caller's; " +
      'else 403 `privilegio_insuficiente` (before the 409s): nothing changes, no audit event, security event `permission.denied` with `reason: privilege_escalation` and the missing codes in `required`.',
  })
  @ApiNoContentResponse({ description: 'The role is inactive.' })
  @ApiErrors(
    [400, BAD_CODE],
    [
      403,
      'The caller lacks `administracion:roles:gestionar` (`permiso_denegado`), or a holder of the role holds a permission the caller lacks (`privilegio_insuficiente`).',
    ],
    404,
    [409, 'An active user holds the role (`rol_en_uso`), or the change would leave no administrator (`anti_lockout`).'],
  )
  async deactivate(@PathRoleCode() codigo: string, @CurrentUser() caller: AuthenticatedUser): Promise<void> {
    await this.roles.deactivate(codigo, caller.userId);
  }

  @Post(':codigo/reactivate')
  @RequirePermission(PERMISSIONS.roles.gestionar)
  @Versioned(ROLE, 'change')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateRole',
    summary: 'Reactivate a role',
    description:
      'Idempotent: reactivating an active role answers 200 and writes no event. Audited as `rol.reactivate`. ' +
      "Delegation rule: reactivating makes the role's permissions assignable, and its holders' once they are reactivated, so every permission of the role must be among the caller's effective permissions; " +
      'else 403 `privilegio_insuficiente`: nothing changes, no audit event, security event `permission.denied` with `reason: privilege_escalation` and the missing codes in `required`.',
  })
  @ApiOkResponse({ type: RolDto })
  @ApiErrors(
    [400, BAD_CODE],
    [
      403,
      'The caller lacks `administracion:roles:gestionar` (`permiso_denegado`), or the role holds a permission the caller lacks (`privilegio_insuficiente`).',
    ],
    404,
  )
  reactivate(@PathRoleCode() codigo: string, @CurrentUser() caller: AuthenticatedUser): Promise<RolDto> {
    return this.roles.reactivate(codigo, caller.userId);
  }

  @Get(':codigo/permisos')
  @RequirePermission(PERMISSIONS.roles.ver)
  @Versioned(ROLE_PERMISOS)
  @RequirePermissionWithQuery('asOf', PERMISSIONS.auditoria.ver)
  @ApiOperation({
    operationId: 'getRolePermissions',
    summary: "A role's permissions",
    description:
      'The sorted permission codes the role owns (an inactive role keeps its set but grants nothing). ' +
      'With `asOf`, the set as it was at that instant, from the system-versioned history; that also needs `administracion:auditoria:ver`.',
  })
  @ApiOkResponse({ type: RolePermissionsDto })
  @ApiErrors([400, `${BAD_CODE} Also an unparsable or future \`asOf\`.`], [404, 'No such role (at `asOf`, when given).'])
  permissions(@PathRoleCode() codigo: string, @Query() query: AsOfQueryDto): Promise<RolePermissionsDto> {
    return query.asOf === undefined ? this.roles.permissionsOf(codigo) : this.roles.permissionsAsOf(codigo, query.asOf);
  }

  @Put(':codigo/permisos')
  @RequirePermission(PERMISSIONS.roles.gestionar)
  @Versioned(ROLE_PERMISOS, 'change')
  @ApiOperation({
    operationId: 'replaceRolePermissions',
    summary: "Replace a role's permissions",
    description:
      'The body is the complete new set (codes of GET /api/v1/permisos; 400 naming each unknown code). Applies to the very next request of every holder. ' +
      'Refused with 409 `anti_lockout` when no active user would keep both `administracion:usuarios:gestionar` and `administracion:roles:gestionar`. ' +
      'Audited as `rol.permisos_update` with `{before, after}` as sorted code arrays. ' +
      "Delegation rule: every code added to the set must be among the caller's effective permissions, codes are removed only from a role whose every holder's effective permissions are the caller's too, " +
      'and nobody changes the set of its own role (the installed `admin` included); ' +
      'else 403 `privilegio_insuficiente`: nothing changes, no audit event, security event `permission.denied` with `reason: privilege_escalation` and the missing codes in `required`. ' +
      'Checks in order: 400, 404, 403, 409, then the 403 of a removal from a role with stronger holders; a stale If-Match (412) hides none of them.',
  })
  @ApiOkResponse({ type: RolePermissionsDto })
  @ApiErrors(
    [400, `${BAD_CODE} Also an unknown permission code.`],
    [
      403,
      'The caller lacks `administracion:roles:gestionar` (`permiso_denegado`), or the delegation rule refuses the change (`privilegio_insuficiente`).',
    ],
    404,
    [409, 'The change would leave no administrator (`anti_lockout`).'],
  )
  replacePermissions(
    @PathRoleCode() codigo: string,
    @Body() dto: ReplaceRolePermissionsDto,
    @CurrentUser() caller: AuthenticatedUser,
  ): Promise<RolePermissionsDto> {
    return this.roles.replacePermissions(codigo, dto.permisos, caller.userId);
  }
}
