import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { PERMISSION_CODE_SCHEMA } from '../../auth/permissions.js';

export class UpdateOverridesDto {
  @ApiProperty({
    ...PERMISSION_CODE_SCHEMA,
    isArray: true,
    maxItems: 200,
    example: ['catalogo:rubros:gestionar'],
    description: 'Codes granted on top of the role (codes of GET /api/v1/permisos).',
  })
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  granted!: string[];

  @ApiProperty({
    ...PERMISSION_CODE_SCHEMA,
    isArray: true,
    maxItems: 200,
    example: ['administracion:medios:gestionar'],
    description: 'Codes denied whatever the role or `granted` say; a code may not be in both lists.',
  })
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  denied!: string[];
}

/** A user's permission view; every array sorted. */
export class UserPermissionsDto {
  @ApiProperty({ example: 7 }) userId!: number;
  @ApiProperty({ example: 'juan.perez' }) username!: string;
  @ApiProperty({ example: 'supervisor' }) rol!: string;
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true, description: "The role's permissions (none while the role is inactive)." })
  rolPermisos!: string[];
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true }) granted!: string[];
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true }) denied!: string[];
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true, description: '(rolPermisos ∪ granted) − denied: a deny always wins.' })
  efectivos!: string[];
}
