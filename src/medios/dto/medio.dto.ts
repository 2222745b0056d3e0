import { ApiProperty, PickType } from '@nestjs/swagger';
import { ImmutableField } from '../../common/validation/validation.js';
import type { MedioEntity } from '../medio.entity.js';
import { resourceStateOf } from '../../common/http/resource-state.js';
import { ActivoFilter, CODIGO_PATTERN, IsCodigo, RequiredText, SearchText } from '../../common/validation/fields.js';

export class CreateMedioDto {
  @ApiProperty({ example: 'DIARIO_NORTE', pattern: CODIGO_PATTERN.source, description: '1..20 characters of [A-Z0-9_]; unique; immutable.' })
  @IsCodigo()
  codigo!: string;

  @ApiProperty({ example: 'Diario del Norte', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;
}

/** An update replaces the editable fields of a create; `codigo` is immutable. */
export class UpdateMedioDto extends PickType(CreateMedioDto, ['nombre'] as const) {
  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

export class MediosQueryDto {
  @SearchText('Case-insensitive substring of codigo or nombre.', 'diario')
  search?: string;

  @ActivoFilter('medios')
  activo?: boolean;
}

export class MedioDto {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ example: 'DIARIO_NORTE' }) codigo!: string;
  @ApiProperty({ example: 'Diario del Norte' }) nombre!: string;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: Omit<MedioEntity, 'version'>): MedioDto {
    return { id: e.id, codigo: e.codigo, nombre: e.nombre, ...resourceStateOf(e) };
  }
}
