import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { PermissionDto } from './dto/permission.dto.js';
import { PermissionsService } from './permissions.service.js';
import { PERMISSIONS } from '../auth/permissions.js';

@ApiTags('roles')
@RequirePermission(PERMISSIONS.roles.ver)
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
  catalog(): Promise<PermissionDto[]> {
    return this.permissions.catalog();
  }
}
