import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto } from '../../../common/pagination/page.js';
import { SortQuery } from '../../../common/pagination/sort.js';
import { ImmutableField } from '../../../common/validation/validation.js';
import type { ProductTypeEntity } from '../product-type.entity.js';
import { resourceStateOf } from '../../../common/http/resource-state.js';
import { ActivoFilter, CODIGO_PATTERN, IsCodigo, OptionalText, RequiredText, SearchText } from '../../../common/validation/fields.js';

export class CreateProductTypeDto {
  @ApiProperty({
    example: 'AVISO_CLASIF',
    pattern: CODIGO_PATTERN.source,
    description: '1..20 characters of [A-Z0-9_]; unique (409 `duplicado`, inactive ones included); immutable.',
  })
  @IsCodigo()
  codigo!: string;

  @ApiProperty({ example: 'Aviso clasificado', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiPropertyOptional({ example: 'Avisos de texto por palabra', maxLength: 500, default: '' })
  @OptionalText(500)
  descripcion?: string;
}

export class UpdateProductTypeDto {
  @ApiProperty({ example: 'Aviso clasificado', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiPropertyOptional({ example: 'Avisos de texto por palabra', maxLength: 500, description: 'Unchanged when absent.' })
  @OptionalText(500)
  descripcion?: string;

  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

/** Fields GET /api/v1/product-types sorts by. */
export const PRODUCT_TYPE_SORT_FIELDS = ['codigo', 'nombre', 'createdAt'] as const;

export class ProductTypesQueryDto extends PageQueryDto {
  @SortQuery(PRODUCT_TYPE_SORT_FIELDS, '`codigo`')
  sort?: string;

  @ActivoFilter('product types')
  activo?: boolean;

  @SearchText('Case-insensitive text contained in codigo or nombre.', 'clasif')
  search?: string;
}

export class ProductTypeDto {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ example: 'AVISO_CLASIF' }) codigo!: string;
  @ApiProperty({ example: 'Aviso clasificado' }) nombre!: string;
  @ApiProperty({ example: 'Avisos de texto por palabra' }) descripcion!: string;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: ProductTypeEntity): ProductTypeDto {
    return { id: e.id, codigo: e.codigo, nombre: e.nombre, descripcion: e.descripcion, ...resourceStateOf(e) };
  }
}
