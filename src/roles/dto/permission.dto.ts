import { ApiProperty } from '@nestjs/swagger';
import { PERMISSION_CODE_SCHEMA } from '../../auth/permissions.js';

/** An entry of the permission catalog. */
export class PermissionDto {
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, example: 'administracion:usuarios:ver' }) codigo!: string;
  @ApiProperty({ example: 'Ver usuarios y sus permisos' }) descripcion!: string;
}
