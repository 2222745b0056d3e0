import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { ImmutableField } from '../../common/validation/validation.js';
import { IsRawDecimal, PORCENTAJE } from '../raw-decimal.js';
import type { TipoIvaEntity } from '../tipo-iva.entity.js';
import { resourceStateOf } from '../../common/http/resource-state.js';
import { RequiredText } from '../../common/validation/fields.js';

const PORCENTAJE_DOC = {
  type: Number,
  example: 21,
  minimum: 0,
  maximum: 100,
  multipleOf: 0.01,
  description: 'A JSON number (never a string) from 0 to 100 with at most 2 decimals, checked on the raw body.',
};

export class CreateTipoIvaDto {
  @ApiProperty({
    example: 5,
    minimum: 1,
    maximum: 2_147_483_647,
    description: 'AFIP code of the VAT type, a positive integer; unique and immutable.',
  })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  codigo!: number;

  @ApiProperty({ example: 'IVA 21%', maxLength: 200 })
  @RequiredText(200)
  descripcion!: string;

  @ApiProperty(PORCENTAJE_DOC)
  @IsRawDecimal(PORCENTAJE)
  porcentaje!: number;
}

/** An update replaces the editable fields of a create; `codigo` is immutable. */
export class UpdateTipoIvaDto extends PickType(CreateTipoIvaDto, ['descripcion', 'porcentaje'] as const) {
  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

export class TipoIvaDto {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ example: 5 }) codigo!: number;
  @ApiProperty({ example: 'IVA 21%' }) descripcion!: string;
  @ApiProperty({ example: 21 }) porcentaje!: number;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: TipoIvaEntity): TipoIvaDto {
    return { id: e.id, codigo: e.codigo, descripcion: e.descripcion, porcentaje: e.porcentaje, ...resourceStateOf(e) };
  }
}
