import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { SessionEntity } from '../session.entity.js';

/** How many sessions a list answers: the most recently used ones (a console shows a screenful). */
export const LISTED_SESSIONS = 100;

/** An active session: one sign-in and its refreshes (a refresh-token family). */
export class SesionDto {
  @ApiProperty({
    format: 'uuid',
    example: '0f8fad5b-d9cb-469f-a165-70867728950e',
    description: 'The session id: the `sid` claim of its access tokens.',
  })
  id!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'The sign-in that opened it.' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time', description: 'The last sign-in or refresh (requests alone do not move it).' })
  lastUsedAt!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When its current refresh token expires (`REFRESH_TOKEN_DAYS` after the last refresh); each refresh moves it.',
  })
  expiresAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7', description: 'Client IP of the last sign-in or refresh.' })
  ip!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Mozilla/5.0 (X11; Linux x86_64)',
    description: 'User agent of the last sign-in or refresh.',
  })
  userAgent!: string | null;

  @ApiProperty({ description: "True for the caller's own session: the one of the access token of this request." })
  current!: boolean;

  static of(s: SessionEntity, currentSessionId: string | undefined): SesionDto {
    const id = s.id.toLowerCase();
    return {
      id,
      createdAt: new Date(s.createdAt).toISOString(),
      lastUsedAt: new Date(s.lastUsedAt).toISOString(),
      expiresAt: new Date(s.expiresAt).toISOString(),
      ip: s.clientIp,
      userAgent: s.userAgent,
      current: id === currentSessionId,
    };
  }
}

/** The 200 of a session list: an array of at most LISTED_SESSIONS sessions. */
export function ApiSessionList(): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(SesionDto),
    ApiOkResponse({ schema: { type: 'array', maxItems: LISTED_SESSIONS, items: { $ref: getSchemaPath(SesionDto) } } }),
  );
}
