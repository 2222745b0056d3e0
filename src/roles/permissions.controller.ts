import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiErrors } from '../common/swagger/problem.dto.js';
import { PermissionDto } from './dto/permission.dto.js';
import { PermissionsService } from './permissions.service.js';
import { ROLES_READ_PERMISSION } from './roles.rules.js';

@ApiTags('roles')
@RequirePermission(ROLES_READ_PERMISSION)
@Controller('api/v1/permisos')
export class PermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listPermissions',
    summary: 'The permission catalog',
    description: 'Every permission code with its description, sorted by codigo.',
  })
  @ApiOkResponse({ type: [PermissionDto] })
  @ApiErrors(401, 403)
  catalog(): Promise<PermissionDto[]> {
    return this.permissions.catalog();
  }
}
