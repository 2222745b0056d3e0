import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageQueryDto } from '../../../common/pagination/page.js';
import { SortQuery } from '../../../common/pagination/sort.js';
import { ImmutableField } from '../../../common/validation/validation.js';
import type { ProductEntity } from '../product.entity.js';
import { resourceStateOf } from '../../../common/http/resource-state.js';
import { ActivoFilter, CODIGO_PATTERN, IsCodigo, IsId, QueryId, RequiredText, SearchText } from '../../../common/validation/fields.js';

/** The fields a create and an update both carry, validated and documented once. */
export class ProductFieldsDto {
  @ApiProperty({ example: 'Clasificado de automotores', maxLength: 200 })
  @RequiredText(200)
  nombre!: string;

  @ApiProperty({ example: 4, description: 'An existing (404) and active (409 `rubro_inactivo`) rubro.' })
  @IsId()
  rubroId!: number;

  @ApiProperty({ example: 1, description: 'An existing (404) and active (409 `tipo_producto_inactivo`) product type.' })
  @IsId()
  productTypeId!: number;
}

export class CreateProductDto extends ProductFieldsDto {
  @ApiProperty({
    example: 'CLASIF_AUTOS',
    pattern: CODIGO_PATTERN.source,
    description: '1..20 characters of [A-Z0-9_]; unique (409 `duplicado`, inactive ones included); immutable.',
  })
  @IsCodigo()
  codigo!: string;
}

export class UpdateProductDto extends ProductFieldsDto {
  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  codigo?: unknown;
}

/** Fields GET /api/v1/products sorts by. */
export const PRODUCT_SORT_FIELDS = ['codigo', 'nombre', 'createdAt'] as const;

export class ProductsQueryDto extends PageQueryDto {
  @SortQuery(PRODUCT_SORT_FIELDS, '`codigo`')
  sort?: string;

  @ApiPropertyOptional({ example: 4, description: 'Only products of this rubro.' })
  @QueryId()
  rubroId?: number;

  @ApiPropertyOptional({ example: 1, description: 'Only products of this product type.' })
  @QueryId()
  productTypeId?: number;

  @ActivoFilter('products')
  activo?: boolean;

  @SearchText('Case-insensitive text contained in codigo or nombre.', 'autos')
  search?: string;
}

export class ProductDto {
  @ApiProperty({ example: 1 }) id!: number;
  @ApiProperty({ example: 'CLASIF_AUTOS' }) codigo!: string;
  @ApiProperty({ example: 'Clasificado de automotores' }) nombre!: string;
  @ApiProperty({ example: 4 }) rubroId!: number;
  @ApiProperty({ example: 1 }) productTypeId!: number;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(e: ProductEntity): ProductDto {
    return { id: e.id, codigo: e.codigo, nombre: e.nombre, rubroId: e.rubroId, productTypeId: e.productTypeId, ...resourceStateOf(e) };
  }
}
