import { ApiProperty } from '@nestjs/swagger';

/** An entry of the permission catalog. */
export class PermissionDto {
  @ApiProperty({ example: 'administracion:usuarios:ver' }) codigo!: string;
  @ApiProperty({ example: 'Ver usuarios y sus permisos' }) descripcion!: string;
}
