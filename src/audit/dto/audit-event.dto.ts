import { ApiProperty } from '@nestjs/swagger';

/** One audit event as GET /api/v1/audit/events shows it (docs/api.md "Audit trail"). */
export class AuditEventDto {
  @ApiProperty({ example: 1234 }) id!: number;
  @ApiProperty({ example: '2025-03-01T12:00:00.123456Z', format: 'date-time', description: 'UTC, microsecond precision' }) occurredAt!: string;
  @ApiProperty({ example: 1 }) actorUserId!: number;
  @ApiProperty({ type: String, nullable: true, example: 'admin', description: "The actor's username; null when the user no longer exists" })
  actorUsername!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) actorRoleId!: number | null;
  @ApiProperty({ type: String, nullable: true, example: '10.0.0.7' }) ip!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0' }) userAgent!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) correlationId!: string | null;
  @ApiProperty({ example: 'usuario.update' }) action!: string;
  @ApiProperty({ example: 'usuario' }) targetType!: string;
  @ApiProperty({ example: '42' }) targetId!: string;
  @ApiProperty({
    description: 'Sanitized JSON: `{after}` for creates, `{before, after}` for updates…; null when the event has none.',
    example: { before: { nombre: 'Ana' }, after: { nombre: 'Ana María' } },
    // anyOf, not oneOf: null matches both branches
    anyOf: [
      { type: 'object', additionalProperties: true, nullable: true },
      { type: 'array', items: {}, nullable: true },
    ],
  })
  metadata: unknown;
}

export class AuditEventsPageDto {
  @ApiProperty({ type: [AuditEventDto], description: 'Newest first (occurredAt, then id)' }) items!: AuditEventDto[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last page',
    example: 'eyJ0IjoiMjAyNS0wMy0wMVQxMjowMDowMC4xMjM0NTYwMDBaIiwiaWQiOiIxMjM0In0.kX3…',
  })
  nextCursor!: string | null;
}
