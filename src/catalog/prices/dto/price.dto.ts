import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import type { ProductPriceEntity } from '../product-price.entity.js';
import { IsCalendarDate, IsMonto, MAX_MONTO } from '../price-rules.js';

export class AddPriceDto {
  @ApiProperty({
    example: '2026-07-01',
    type: String,
    format: 'date',
    description:
      'Exactly `yyyy-MM-dd`, a real date, on or after today in America/Argentina/Buenos_Aires (else 400) and strictly after every existing date of the product (else 409 `precio_no_posterior`).',
  })
  @IsCalendarDate()
  fechaVigencia!: string;

  @ApiProperty({
    example: 1500.5,
    minimum: 0.01,
    maximum: MAX_MONTO,
    multipleOf: 0.01,
    description: 'A JSON number > 0 with at most 2 decimals (a string is 400); stored as an exact decimal.',
  })
  @IsMonto()
  monto!: number;
}

export class VigenteQueryDto {
  @ApiPropertyOptional({
    example: '2026-07-15',
    type: String,
    format: 'date',
    description: 'Exactly `yyyy-MM-dd`; today in America/Argentina/Buenos_Aires when absent.',
  })
  @IsOptional()
  @IsCalendarDate()
  fecha?: string;
}

export class AddPriceResponseDto {
  @ApiProperty({ example: 31 }) id!: number;
  @ApiProperty({ example: 7 }) productId!: number;
  @ApiProperty({ example: '2026-07-01', type: String, format: 'date' }) fechaVigencia!: string;
  @ApiProperty({ example: 1500.5 }) monto!: number;
}

export class PriceDto extends AddPriceResponseDto {
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;

  static of(e: ProductPriceEntity): PriceDto {
    return { id: e.id, productId: e.productId, fechaVigencia: e.fechaVigencia, monto: e.monto, createdAt: e.createdAt.toISOString() };
  }
}
