import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/**
 * `?asOf=` of the point-in-time reads. Not declared `format: date-time`: the server also takes an
 * instant without seconds, which a client checking that format would refuse to send.
 */
export class AsOfQueryDto {
  @ApiPropertyOptional({
    example: '2025-03-01T10:20:30Z',
    description:
      'Answer the state as it was at this instant, read from the system-versioned history: an RFC 3339 date-time ' +
      '(`2025-03-01T10:20:30Z`, `2025-03-01T07:20:30.5-03:00` with `+` URL-encoded), or one without seconds (`2025-03-01T10:20Z`); ' +
      'at most 9 fraction digits, and the `Z` or offset is required. ' +
      'Needs `administracion:auditoria:ver` too. 400 when unparsable or in the future; 404 when the row did not exist then.',
  })
  @IsOptional()
  @IsString()
  asOf?: string;
}
