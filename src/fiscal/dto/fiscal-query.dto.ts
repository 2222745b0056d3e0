import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { ToBoolean } from '../../common/validation/transforms.js';

export class FiscalListQueryDto {
  @ApiPropertyOptional({ description: 'Only active (true) or inactive (false) entries; both when absent.' })
  @IsOptional()
  @ToBoolean()
  @IsBoolean()
  activo?: boolean;
}
