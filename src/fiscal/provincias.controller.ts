import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../auth/decorators/require-permission.decorator.js';
import { ApiFiscalErrors } from '../common/swagger/problem.dto.js';
import { ProvinciaDto } from './dto/ingresos-brutos.dto.js';
import { PROVINCIAS } from './provincias.js';

export const FISCAL_PERMISSION = 'administracion:fiscal:gestionar';

@ApiTags('fiscal')
@RequirePermission(FISCAL_PERMISSION)
@Controller('api/v1/admin/fiscal/provincias')
export class ProvinciasController {
  @Get()
  @ApiOperation({
    operationId: 'listProvincias',
    summary: 'List the provincias',
    description: 'The 24 Argentine jurisdictions an ingresos brutos entry may name, as `{codigo, nombre}`.',
  })
  @ApiOkResponse({ type: [ProvinciaDto] })
  @ApiFiscalErrors(401, 403)
  list(): ProvinciaDto[] {
    return PROVINCIAS.map((p) => ({ codigo: p.codigo, nombre: p.nombre }));
  }
}
