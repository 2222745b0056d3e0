import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateIf } from 'class-validator';
import type { RubroTreeRow } from '../rubro-tree.js';
import { IsId, QueryFlag, RequiredText } from '../../../common/validation/fields.js';

export class CreateRubroDto {
  @ApiProperty({
    example: 'Automotores',
    maxLength: 100,
    description: 'Unique among the active rubros under the same parent, case-insensitively (409 `duplicado`). Trimmed.',
  })
  @RequiredText(100)
  nombre!: string;

  @ApiPropertyOptional({ type: Number, nullable: true, example: 3, description: 'The parent rubro; null or absent for a root.' })
  @IsOptional()
  @IsId()
  parentId?: number | null;
}

export class UpdateRubroDto {
  @ApiProperty({
    example: 'Automotores usados',
    maxLength: 100,
    description: 'The new name; unique among the active siblings, case-insensitively. Trimmed.',
  })
  @RequiredText(100)
  nombre!: string;
}

export class MoveRubroDto {
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 7,
    description: 'The new parent rubro; null makes the rubro a root. Required (send null explicitly).',
  })
  @ValidateIf((o: MoveRubroDto) => o.parentId !== null)
  @IsId()
  parentId!: number | null;
}

export class RubroTreeQueryDto {
  @ApiPropertyOptional({ description: 'Include inactive rubros (and their subtrees); only active ones when absent or false.', default: false })
  @QueryFlag()
  incluirInactivos?: boolean;
}

export class RubroDto {
  @ApiProperty({ example: 12 }) id!: number;
  @ApiProperty({ example: 'Automotores' }) nombre!: string;
  @ApiProperty({ type: Number, nullable: true, example: 3, description: 'null for a root' }) parentId!: number | null;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ description: 'A row of `avisos` references the rubro: it is a leaf (no children may be added or moved under it).' })
  tieneAvisos!: boolean;
  @ApiProperty({ example: 2, description: 'Level in the tree; roots are 1, at most RUBROS_MAX_DEPTH (10).' }) nivel!: number;

  static of(row: RubroTreeRow): RubroDto {
    return { id: row.id, nombre: row.nombre, parentId: row.parentId, activo: row.activo, tieneAvisos: row.tieneAvisos, nivel: row.nivel };
  }
}

/** Documents the tree's nodes; the service answers `buildRubroTree`'s nodes, which have this shape. */
export class RubroTreeNodeDto extends RubroDto {
  @ApiProperty({ type: () => [RubroTreeNodeDto], description: 'Children, ordered by nombre.' }) hijos!: RubroTreeNodeDto[];
}
