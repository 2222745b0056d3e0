import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ImmutableField } from '../../common/validation/validation.js';
import { TIPOS_SECCION, type TipoSeccion } from '../medios.rules.js';
import type { SeccionEntity } from '../seccion.entity.js';
import { resourceStateOf } from '../../common/http/resource-state.js';
import { ActivoFilter, CODIGO_PATTERN, IsCodigo, IsId, QueryId, RequiredText } from '../../common/validation/fields.js';

const TIPO_MESSAGE = `tipo debe ser uno de: ${TIPOS_SECCION.join(', ')}`;

export class CreateSeccionDto {
  @ApiProperty({ example: 1, description: 'The parent medio; it must exist (404) and be active (409 `medio_inactivo`). Immutable.' })
  @IsId()
  medioId!: number;

  @ApiProperty({
    example: 'CLASIF',
    pattern: CODIGO_PATTERN.source,
    description: '1..20 characters of [A-Z0-9_]; unique within the medio; immutable.',
  })
  @IsCodigo()
  codigo!: string;

  @ApiProperty({ example: 'Clasificados', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiProperty({ enum: TIPOS_SECCION, enumName: 'SeccionTipo', example: 'clasificados' })
  @IsIn(TIPOS_SECCION, { message: TIPO_MESSAGE })
  tipo!: TipoSeccion;
}

/** An update replaces the editable fields of a create; `medioId` and `codigo` are immutable. */
export class UpdateSeccionDto extends PickType(CreateSeccionDto, ['nombre', 'tipo'] as const) {
  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  medioId?: unknown;

  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

export class SeccionesQueryDto {
  @ApiPropertyOptional({ description: 'Only the secciones of this medio.' })
  @QueryId()
  medioId?: number;

  @ActivoFilter('secciones')
  activo?: boolean;
}

export class SeccionDto {
  @ApiProperty({ example: 7 }) id!: number;
  @ApiProperty({ example: 1 }) medioId!: number;
  @ApiProperty({ example: 'CLASIF' }) codigo!: string;
  @ApiProperty({ example: 'Clasificados' }) nombre!: string;
  @ApiProperty({ enum: TIPOS_SECCION, enumName: 'SeccionTipo', example: 'clasificados' }) tipo!: TipoSeccion;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: SeccionEntity): SeccionDto {
    return { id: e.id, medioId: e.medioId, codigo: e.codigo, nombre: e.nombre, tipo: e.tipo, ...resourceStateOf(e) };
  }
}
