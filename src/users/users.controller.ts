import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Created } from '../common/http/created.decorator.js';
import { type AuthenticatedUser, CurrentUser } from '../auth/decorators/current-user.decorator.js';
import { Authenticated, RequirePermission, RequirePermissionWithQuery } from '../auth/decorators/require-permission.decorator.js';
import { ApiSessionList, SesionDto } from '../auth/dto/session.dto.js';
import { PathSessionId } from '../auth/session-id.pipe.js';
import { type Page, PageOf } from '../common/pagination/page.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { NoRequestTransaction } from '../common/transactions/request-transaction.interceptor.js';
import { PathId } from '../common/validation/path-id.js';
import { AsOfQueryDto } from '../roles/dto/as-of.dto.js';
import { ChangeOwnPasswordDto, TemporaryPasswordDto } from './dto/password.dto.js';
import { UpdateOverridesDto, UserPermissionsDto } from './dto/user-permissions.dto.js';
import { CreateUserDto, UpdateUserDto, UsuarioCreatedDto, UsuarioDto, UsersQueryDto } from './dto/user.dto.js';
import { UserPasswordsService } from './user-passwords.service.js';
import { UserPermissionsService } from './user-permissions.service.js';
import { UserSessionsService } from './user-sessions.service.js';
import { UsersService } from './users.service.js';
import { byId, Versioned } from '../common/versioning/versioned.decorator.js';
import { PERMISSION_SET_VERSION } from '../common/versioning/versioned-writes.js';
import { PERMISSIONS } from '../auth/permissions.js';

const ANTI_LOCKOUT =
  'The change would leave no active user holding both `administracion:usuarios:gestionar` and `administracion:roles:gestionar`, or the caller targets itself (`anti_lockout`).';
/** The delegation rule as the operations below state it (docs/permissions.md). */
const ACT_ON =
  'Delegation rule: refused with 403 `privilegio_insuficiente` when the user holds an effective permission the caller lacks (the installed `admin` holds them all); ' +
  'such a refusal changes nothing, writes no audit event and records the security event `permission.denied` with `reason: privilege_escalation` and the missing codes in `required`.';
const PRIVILEGE =
  "The delegation rule refuses the change (`privilegio_insuficiente`, see the description), or the caller lacks the route's permission (`permiso_denegado`).";
const PASSWORD_WORK =
  'The password work (bcrypt, strength estimate) waits in a bounded queue; when it is full the answer is 503 `servicio_no_disponible` at once, with `Retry-After`.';
const POLICY =
  'Policy: 10..72 bytes (UTF-8), not the username, at least two character classes, and a zxcvbn-ts strength score of at least 3 of 4 (common and Spanish dictionaries, the user’s username, nombre, apellido and email as context); else 400 `password_debil`.';
const AS_OF = 'With `asOf`, the state as it was at that instant, from the system-versioned history; that also needs `administracion:auditoria:ver`.';

/** If-Match of a user's changes: the user's row version; the representation of GET /users/{id}. */
const USER = byId('users', UsersService, (s, id) => s.get(id));
/** The overrides live in the user's row, so its version stands for them; the representation of GET /users/{id}/permisos. */
const USER_PERMISOS = byId('users', UserPermissionsService, (s, id) => s.view(id), PERMISSION_SET_VERSION);
@ApiTags('users')
@Controller('api/v1/users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly passwords: UserPasswordsService,
    private readonly userPermissions: UserPermissionsService,
    private readonly userSessions: UserSessionsService,
  ) {}

  // Declared before the `:id` routes: the caller's own password is not a user id.
  @Put('me/password')
  @Authenticated()
  @HttpCode(204)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'changeOwnPassword',
    summary: 'Change my password',
    description:
      'Needs only a valid access token. Verifies `currentPassword` (400 `password_actual_incorrecto`), applies the password policy (400 `password_debil`), ' +
      'clears `mustChangePassword` and revokes every refresh token of the caller. Audited as `usuario.password_change` (no secret in the metadata). ' +
      'A wrong `currentPassword` counts as a failed sign-in of the caller from this client IP (the login throttle): beyond the limit the answer is 429 `demasiados_intentos` with `Retry-After`, without checking. ' +
      `Security events: \`password.change\` success, or failure \`invalid_password\` / \`too_many_attempts\`. ${POLICY} ${PASSWORD_WORK}`,
  })
  @ApiNoContentResponse({ description: 'Changed.' })
  @ApiErrors(
    [
      400,
      'Validation failure (`validacion`), wrong current password (`password_actual_incorrecto`) or a new password the policy refuses (`password_debil`).',
    ],
    [429, 'Too many wrong current passwords (`demasiados_intentos`); `Retry-After` says how many seconds to wait.'],
    [503, 'The password queue is full (`servicio_no_disponible`); `Retry-After` says when to retry.'],
  )
  async changeOwnPassword(@CurrentUser() caller: AuthenticatedUser, @Body() dto: ChangeOwnPasswordDto): Promise<void> {
    await this.passwords.changeOwn(caller.userId, dto);
  }

  @Get()
  @RequirePermission(PERMISSIONS.usuarios.ver)
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users',
    description: 'Paged, ordered by username. `search` matches username, nombre, apellido or email (case-insensitive); `rol` and `activo` filter.',
  })
  @ApiOkResponse({ type: PageOf(UsuarioDto) })
  @ApiErrors(400)
  list(@Query() query: UsersQueryDto): Promise<Page<UsuarioDto>> {
    return this.users.list(query);
  }

  @Post()
  @Versioned(USER)
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'createUser',
    summary: 'Create a user',
    description:
      'The user starts active with `mustChangePassword: true` and no overrides. `rol` must name an existing active role (else 400); the password must satisfy the policy (400 `password_debil`); ' +
      'the username is unique, case-sensitively (409 `duplicado`, also when creates race). Audited as `usuario.create` (no password). ' +
      'Delegation rule: every permission of `rol` must be among the caller’s effective permissions, else 403 `privilegio_insuficiente` ' +
      '(nothing created, no audit event, security event `permission.denied` with `reason: privilege_escalation` and the missing codes in `required`). ' +
      `Checks in order: 400, 403, 409. ${POLICY} ${PASSWORD_WORK}`,
  })
  @Created(UsuarioCreatedDto, (user) => `/api/v1/users/${user.id}`, 'Created; `Location` points at the user.')
  @ApiErrors(
    [400, 'Validation failure (`validacion`), an unknown or inactive role, or a password the policy refuses (`password_debil`).'],
    [403, PRIVILEGE],
    [409, 'The username is taken (`duplicado`).'],
    [503, 'The password queue is full (`servicio_no_disponible`); `Retry-After` says when to retry.'],
  )
  create(@Body() dto: CreateUserDto, @CurrentUser() caller: AuthenticatedUser): Promise<UsuarioCreatedDto> {
    return this.users.create(dto, caller.userId);
  }

  @Get(':id')
  @Versioned(USER)
  @RequirePermission(PERMISSIONS.usuarios.ver)
  @RequirePermissionWithQuery('asOf', PERMISSIONS.auditoria.ver)
  @ApiOperation({ operationId: 'getUser', summary: 'Get a user', description: `One user, active or not. ${AS_OF}` })
  @ApiOkResponse({ type: UsuarioDto })
  @ApiErrors([400, 'A bad id, or an unparsable or future `asOf` (`validacion`).'], [404, 'No such user (at `asOf`, when given).'])
  get(@PathId() id: number, @Query() query: AsOfQueryDto): Promise<UsuarioDto> {
    return query.asOf === undefined ? this.users.get(id) : this.users.getAsOf(id, query.asOf);
  }

  @Put(':id')
  @Versioned(USER, 'change')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Update a user',
    description:
      'Replaces nombre, apellido, email and rol (an existing active role when it changes). `username` is immutable (400 `campo_inmutable`). ' +
      "Revokes the user's refresh tokens. The caller cannot change its own role, and no role change may remove the last administrator (409 `anti_lockout`). Audited as `usuario.update`. " +
      `${ACT_ON} A new \`rol\` must hold only permissions the caller holds, too. Checks in order: 400, 404, 403, 409.`,
  })
  @ApiOkResponse({ type: UsuarioDto })
  @ApiErrors(
    [400, 'Validation failure (`validacion`), an unknown or inactive role, or an immutable field in the body (`campo_inmutable`).'],
    [403, PRIVILEGE],
    404,
    [409, ANTI_LOCKOUT],
  )
  update(@PathId() id: number, @Body() dto: UpdateUserDto, @CurrentUser() caller: AuthenticatedUser): Promise<UsuarioDto> {
    return this.users.update(id, dto, caller.userId);
  }

  @Post(':id/deactivate')
  @Versioned(USER, 'change')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deactivateUser',
    summary: 'Deactivate a user',
    description:
      "Revokes the user's refresh tokens; its access tokens stop working on the next request. Nobody deactivates themselves or the last administrator (409 `anti_lockout`). " +
      `Idempotent: deactivating an inactive user answers 200 and writes no event. Audited as \`usuario.deactivate\`. ${ACT_ON}`,
  })
  @ApiOkResponse({ type: UsuarioDto })
  @ApiErrors(400, [403, PRIVILEGE], 404, [409, ANTI_LOCKOUT])
  deactivate(@PathId() id: number, @CurrentUser() caller: AuthenticatedUser): Promise<UsuarioDto> {
    return this.users.deactivate(id, caller.userId);
  }

  @Post(':id/reactivate')
  @Versioned(USER, 'change')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reactivateUser',
    summary: 'Reactivate a user',
    description: `Idempotent: reactivating an active user answers 200 and writes no event. A user whose role is inactive is reactivated too: the inactive role contributes no permissions, so the user holds only what its overrides grant. Audited as \`usuario.reactivate\`. ${ACT_ON}`,
  })
  @ApiOkResponse({ type: UsuarioDto })
  @ApiErrors(400, [403, PRIVILEGE], 404)
  reactivate(@PathId() id: number, @CurrentUser() caller: AuthenticatedUser): Promise<UsuarioDto> {
    return this.users.reactivate(id, caller.userId);
  }

  @Post(':id/password-reset')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @HttpCode(200)
  @NoRequestTransaction()
  @ApiOperation({
    operationId: 'resetUserPassword',
    summary: "Reset a user's password",
    description:
      "Sets a random temporary password that satisfies the policy and answers it once; sets `mustChangePassword` and revokes the user's refresh tokens. " +
      'Audited as `usuario.password_reset` with only the target id in the metadata. ' +
      `The caller cannot reset its own password this way (403 \`privilegio_insuficiente\`, everyone included; it uses PUT /api/v1/users/me/password). ${ACT_ON} ${PASSWORD_WORK}`,
  })
  @ApiOkResponse({ type: TemporaryPasswordDto })
  @ApiErrors(400, [403, PRIVILEGE], 404, [503, 'The password queue is full (`servicio_no_disponible`); `Retry-After` says when to retry.'])
  resetPassword(@PathId() id: number, @CurrentUser() caller: AuthenticatedUser): Promise<TemporaryPasswordDto> {
    return this.passwords.reset(id, caller.userId);
  }

  @Get(':id/permisos')
  @Versioned(USER_PERMISOS)
  @RequirePermission(PERMISSIONS.usuarios.ver)
  @RequirePermissionWithQuery('asOf', PERMISSIONS.auditoria.ver)
  @ApiOperation({
    operationId: 'getUserPermissions',
    summary: "A user's permission view",
    description: `Role permissions (none while the role is inactive), the overrides, and the effective set = (role ∪ granted) − denied: a deny always wins. Arrays sorted. ${AS_OF}`,
  })
  @ApiOkResponse({ type: UserPermissionsDto })
  @ApiErrors([400, 'A bad id, or an unparsable or future `asOf` (`validacion`).'], [404, 'No such user (at `asOf`, when given).'])
  permissions(@PathId() id: number, @Query() query: AsOfQueryDto): Promise<UserPermissionsDto> {
    return query.asOf === undefined ? this.userPermissions.view(id) : this.userPermissions.viewAsOf(id, query.asOf);
  }

  @Put(':id/permisos/overrides')
  @Versioned(USER_PERMISOS, 'change')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @ApiOperation({
    operationId: 'updateUserOverrides',
    summary: "Replace a user's permission overrides",
    description:
      "Both lists hold codes of the catalog; a code may not be in both (400). Applies to the user's very next request. " +
      'No override may remove the last administrator (409 `anti_lockout`). Audited as `usuario.permisos_update` with `{before, after}` of both lists. ' +
      'The caller cannot change its own overrides, not even with a body that changes nothing (403 `privilegio_insuficiente`, everyone included); ' +
      `every code in \`granted\` must be among the caller's effective permissions. ${ACT_ON} Checks in order: 400, 404, 403, 409.`,
  })
  @ApiOkResponse({ type: UserPermissionsDto })
  @ApiErrors([400, 'Validation failure (`validacion`): an unknown code or a code in both lists.'], [403, PRIVILEGE], 404, [409, ANTI_LOCKOUT])
  updateOverrides(@PathId() id: number, @Body() dto: UpdateOverridesDto, @CurrentUser() caller: AuthenticatedUser): Promise<UserPermissionsDto> {
    return this.userPermissions.updateOverrides(id, dto, caller.userId);
  }

  @Get(':id/sessions')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @ApiOperation({
    operationId: 'listUserSessions',
    summary: "A user's active sessions",
    description:
      'The active sessions of the user (one per sign-in, kept alive by refreshes), most recently used first, at most 100; `current` marks the caller’s own ' +
      'session when the user is the caller. Ended and expired sessions are not listed.',
  })
  @ApiSessionList()
  @ApiErrors(400, [404, 'No such user (`no_encontrado`).'])
  sessions(@PathId() id: number, @CurrentUser() caller: AuthenticatedUser): Promise<SesionDto[]> {
    return this.userSessions.list(id, caller);
  }

  @Delete(':id/sessions/:sessionId')
  @RequirePermission(PERMISSIONS.usuarios.gestionar)
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeUserSession',
    summary: "End one of a user's sessions",
    description:
      'Ends the session: its refresh tokens are revoked and its access tokens refused from the next request; the user’s other sessions stay open ' +
      '(to end them all, update, deactivate or reset the password of the user). Ending an already-ended session answers 204 and records nothing. ' +
      'Audited as `usuario.session_revoke` (target the user) with metadata `{sessionId}`. ' +
      ACT_ON,
  })
  @ApiNoContentResponse({ description: 'Ended (or already ended).' })
  @ApiErrors(
    [400, 'A bad user id, or a session id that is not a UUID (`validacion`).'],
    [403, PRIVILEGE],
    [404, 'No such user, or the user has no session with that id (`no_encontrado`).'],
  )
  async revokeSession(@PathId() id: number, @PathSessionId('sessionId') sessionId: string, @CurrentUser() caller: AuthenticatedUser): Promise<void> {
    await this.userSessions.revoke(id, sessionId, caller);
  }
}
