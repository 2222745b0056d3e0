import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsInt, IsOptional, IsString, Max, Min, MinLength, registerDecorator, type ValidationOptions } from 'class-validator';
import { QueryId, StoredLength } from '../../common/validation/fields.js';
import { ToInt } from '../../common/validation/transforms.js';
import { parseInstant } from '../utc-instant.js';
import { OpaqueText } from '../../common/validation/validation.js';

/** An ISO-8601 timestamp parseInstant accepts (400 otherwise). */
function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} debe ser una fecha y hora ISO-8601, p. ej. 2025-03-01T12:00:00Z`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && parseInstant(value) !== null },
    });
}

/**
 * Query of GET /api/v1/audit/events (docs/api.md "Audit trail"). `from` and `to` are not declared
 * `format: date-time`: the server also takes instants without seconds or without an offset, which
 * a client checking that format would refuse to send.
 */
export class AuditEventsQueryDto {
  @ApiPropertyOptional({ type: 'integer', description: 'Only events by this user id.', example: 1 })
  @QueryId()
  actorUserId?: number;

  @ApiPropertyOptional({ description: 'Only events of this action (exact), e.g. `usuario.update`.', example: 'usuario.update', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @StoredLength(64)
  action?: string;

  @ApiPropertyOptional({ description: 'Only events on this kind of resource (singular snake_case).', example: 'usuario', maxLength: 64 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @StoredLength(64)
  targetType?: string;

  @ApiPropertyOptional({ description: 'Only events on this resource id (compared as text; a role is its codigo).', example: '42', maxLength: 128 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @StoredLength(128)
  targetId?: string;

  @ApiPropertyOptional({
    description:
      'Events at or after this instant (inclusive): an RFC 3339 date-time (`2025-03-01T00:00:00Z`, `2025-02-28T21:00:00-03:00` with `+` URL-encoded), ' +
      'or one without seconds (`2025-03-01T00:00Z`) or without an offset (`2025-03-01T00:00:00`: UTC); at most 9 fraction digits.',
    example: '2025-03-01T00:00:00Z',
  })
  @IsOptional()
  @IsInstant()
  from?: string;

  @ApiPropertyOptional({
    description: 'Events at or before this instant (inclusive); same format as `from`; not earlier than `from`.',
    example: '2025-03-31T23:59:59.999999Z',
  })
  @IsOptional()
  @IsInstant()
  to?: string;

  @ApiPropertyOptional({
    type: String,
    description:
      'The `nextCursor` of the previous page, as received. A malformed or altered cursor is ignored: the query starts from the newest event.',
  })
  @IsOptional()
  @Allow()
  @OpaqueText()
  cursor?: unknown;

  @ApiPropertyOptional({ type: 'integer', description: 'Events per page.', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'limit debe ser un entero entre 1 y 100' })
  @Min(1, { message: 'limit debe ser un entero entre 1 y 100' })
  @Max(100, { message: 'limit debe ser un entero entre 1 y 100' })
  limit?: number;
}
