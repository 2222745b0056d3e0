import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** `?asOf=` of the point-in-time reads. */
export class AsOfQueryDto {
  @ApiPropertyOptional({
    example: '2025-03-01T10:20:30Z',
    description:
      'Answer the state as it was at this instant (ISO-8601 with `Z` or an offset), read from the system-versioned history. ' +
      'Needs `administracion:auditoria:ver` too. 400 when unparsable or in the future; 404 when the row did not exist then.',
  })
  @IsOptional()
  @IsString()
  asOf?: string;
}
