import { type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInt } from '../validation/transforms.js';

/** `page` (1-based, default 1) and `pageSize` (1..100, default 20); out of range is 400. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1_000_000, default: 1 })
  @IsOptional()
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100)
  pageSize?: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export function pageOf(query: PageQueryDto): { page: number; pageSize: number; skip: number; take: number } {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 20;
  return { page, pageSize, skip: (page - 1) * pageSize, take: pageSize };
}

const pageClasses = new Map<Type<unknown>, Type<unknown>>();

/** The OpenAPI model of `Page<Item>`: `@ApiOkResponse({ type: PageOf(MedioDto) })`. */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  const existing = pageClasses.get(item);
  if (existing) return existing as Type<Page<T>>;
  class PageDto {
    @ApiProperty({ type: [item] }) items!: T[];
    @ApiProperty() total!: number;
    @ApiProperty() page!: number;
    @ApiProperty() pageSize!: number;
  }
  Object.defineProperty(PageDto, 'name', { value: `${item.name.replace(/Dto$/, '')}PageDto` });
  pageClasses.set(item, PageDto);
  return PageDto;
}
