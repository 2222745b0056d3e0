import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { ImmutableField } from '../../common/validation/validation.js';
import type { RoleEntity } from '../role.entity.js';
import { IsRoleCode } from '../role-code.pipe.js';
import { OptionalText, QueryFlag, RequiredText, SearchText } from '../../common/validation/fields.js';
import { PERMISSION_CODE_SCHEMA } from '../../auth/permissions.js';

export class CreateRoleDto {
  @ApiProperty({
    example: 'cobranzas',
    description: 'Lowercase letters, digits and `_`, a letter first; unique (inactive roles included); immutable.',
  })
  @IsRoleCode()
  codigo!: string;

  @ApiProperty({ example: 'Cobranzas', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiPropertyOptional({ example: 'Gestión de cobranzas', maxLength: 500, default: '' })
  @OptionalText(500)
  descripcion?: string;
}

export class UpdateRoleDto {
  @ApiProperty({ example: 'Cobranzas', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiPropertyOptional({ example: 'Gestión de cobranzas', maxLength: 500, description: 'Kept as it is when absent.' })
  @OptionalText(500)
  descripcion?: string;

  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

export class RolesQueryDto {
  @SearchText('Case-insensitive substring of codigo or nombre.', 'admin')
  search?: string;

  @ApiPropertyOptional({ description: 'Include inactive roles (default false: active roles only).' })
  @QueryFlag()
  incluirInactivos?: boolean;
}

export class RolDto {
  @ApiProperty({ example: 'supervisor' }) codigo!: string;
  @ApiProperty({ example: 'Supervisor' }) nombre!: string;
  @ApiProperty({ example: 'Supervisión de medios, puntos de venta y catálogo' }) descripcion!: string;
  @ApiProperty() activo!: boolean;

  static of(r: Pick<RoleEntity, 'codigo' | 'nombre' | 'descripcion' | 'activo'>): RolDto {
    return { codigo: r.codigo, nombre: r.nombre, descripcion: r.descripcion, activo: Boolean(r.activo) };
  }
}

export class ReplaceRolePermissionsDto {
  @ApiProperty({
    ...PERMISSION_CODE_SCHEMA,
    isArray: true,
    maxItems: 200,
    example: ['administracion:usuarios:ver', 'catalogo:rubros:gestionar'],
    description: 'The complete new set: codes of the catalog (GET /api/v1/permisos); duplicates are ignored.',
  })
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  permisos!: string[];
}

export class RolePermissionsDto {
  @ApiProperty({ example: 'supervisor' }) codigo!: string;
  @ApiProperty({
    ...PERMISSION_CODE_SCHEMA,
    isArray: true,
    example: ['administracion:medios:gestionar', 'administracion:usuarios:ver'],
    description: 'Sorted.',
  })
  permisos!: string[];
}
