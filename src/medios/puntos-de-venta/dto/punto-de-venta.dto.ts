import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../../common/pagination/page.js';
import { SortQuery } from '../../../common/pagination/sort.js';
import { ToInt } from '../../../common/validation/transforms.js';
import { ImmutableField } from '../../../common/validation/validation.js';
import type { PuntoDeVentaEntity } from '../punto-de-venta.entity.js';
import { resourceStateOf } from '../../../common/http/resource-state.js';
import { ActivoFilter, IsId, QueryId, RequiredText } from '../../../common/validation/fields.js';

export const NUMERO_AFIP_MAX = 99_999;

/** The fields a create and an update both carry, validated and documented once. */
export class PuntoDeVentaFieldsDto {
  @ApiProperty({ example: 3, minimum: 1, maximum: NUMERO_AFIP_MAX, description: 'AFIP point-of-sale number, unique within the medio.' })
  @IsInt()
  @Min(1)
  @Max(NUMERO_AFIP_MAX)
  numeroAFIP!: number;

  @ApiProperty({ example: 'Casa central', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiProperty({ example: 'Av. Siempre Viva 742, Salta', maxLength: 200 })
  @RequiredText(200)
  domicilio!: string;
}

export class CreatePuntoDeVentaDto extends PuntoDeVentaFieldsDto {
  @ApiProperty({ example: 1, description: 'The medio; it must exist (404) and be active (409 `medio_inactivo`). Immutable.' })
  @IsId()
  medioId!: number;
}

export class UpdatePuntoDeVentaDto extends PuntoDeVentaFieldsDto {
  /** a point of sale never moves to another medio: 400 campo_inmutable */
  @ImmutableField()
  medioId?: unknown;
}

/** Fields GET /api/v1/admin/puntos-de-venta sorts by. */
export const PUNTO_DE_VENTA_SORT_FIELDS = ['numeroAFIP', 'nombre', 'createdAt'] as const;

export class PuntosDeVentaQueryDto extends PageQueryDto {
  @SortQuery(PUNTO_DE_VENTA_SORT_FIELDS, '`medioId`, then `numeroAFIP`')
  sort?: string;

  @ApiPropertyOptional({ description: 'Only the points of sale of this medio.' })
  @QueryId()
  medioId?: number;

  @ActivoFilter('points of sale')
  activo?: boolean;
}

/** GET /api/v1/admin/medios/{medioId}/puntos-de-venta: the whole list of one medio, optionally filtered. */
export class MedioPuntosDeVentaQueryDto {
  @ActivoFilter('points of sale')
  activo?: boolean;
}

export class PuntoDeVentaLookupDto {
  @ApiProperty({ example: 1 })
  @ToInt()
  @IsId()
  medioId!: number;

  @ApiProperty({ example: 3, minimum: 1, maximum: NUMERO_AFIP_MAX })
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(NUMERO_AFIP_MAX)
  numeroAFIP!: number;
}

export class PuntoDeVentaDto {
  @ApiProperty({ example: 12 }) id!: number;
  @ApiProperty({ example: 1 }) medioId!: number;
  @ApiProperty({ example: 3 }) numeroAFIP!: number;
  @ApiProperty({ example: 'Casa central' }) nombre!: string;
  @ApiProperty({ example: 'Av. Siempre Viva 742, Salta' }) domicilio!: string;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: PuntoDeVentaEntity): PuntoDeVentaDto {
    return { id: e.id, medioId: e.medioId, numeroAFIP: e.numeroAFIP, nombre: e.nombre, domicilio: e.domicilio, ...resourceStateOf(e) };
  }
}
