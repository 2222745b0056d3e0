import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import type { IngresosBrutosEntity } from '../ingresos-brutos.entity.js';
import { PROVINCIA_CODIGOS, type Provincia } from '../provincias.js';
import { ALICUOTA, IsRawDecimal } from '../raw-decimal.js';
import { resourceStateOf } from '../../common/http/resource-state.js';
import { RequiredText } from '../../common/validation/fields.js';

const ALICUOTA_DOC = {
  type: Number,
  example: 3.5,
  minimum: 0,
  maximum: 100,
  multipleOf: 0.0001,
  description: 'A JSON number (never a string) from 0 to 100 with at most 4 decimals, checked on the raw body.',
};

/** The body of create and update (every field of an entry is editable). */
export class IngresosBrutosBodyDto {
  @ApiProperty({
    enum: PROVINCIA_CODIGOS,
    enumName: 'Provincia',
    example: 'SALTA',
    description: 'One of `GET /api/v1/admin/fiscal/provincias`; one active entry per provincia.',
  })
  @IsIn(PROVINCIA_CODIGOS, { message: 'provincia debe ser un código de GET /api/v1/admin/fiscal/provincias' })
  provincia!: Provincia;

  @ApiProperty({ example: 'Ingresos brutos Salta, actividad general', maxLength: 200 })
  @RequiredText(200)
  descripcion!: string;

  @ApiProperty(ALICUOTA_DOC)
  @IsRawDecimal(ALICUOTA)
  alicuota!: number;
}

export class IngresosBrutosDto {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ enum: PROVINCIA_CODIGOS, enumName: 'Provincia', example: 'SALTA' }) provincia!: Provincia;
  @ApiProperty({ example: 'Ingresos brutos Salta, actividad general' }) descripcion!: string;
  @ApiProperty({ example: 3.5 }) alicuota!: number;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: IngresosBrutosEntity): IngresosBrutosDto {
    return { id: e.id, provincia: e.provincia, descripcion: e.descripcion, alicuota: e.alicuota, ...resourceStateOf(e) };
  }
}

export class ProvinciaDto {
  @ApiProperty({ enum: PROVINCIA_CODIGOS, enumName: 'Provincia', example: 'SALTA' }) codigo!: Provincia;
  @ApiProperty({ example: 'Salta' }) nombre!: string;
}
