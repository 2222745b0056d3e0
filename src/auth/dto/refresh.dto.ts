import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { OpaqueText } from '../../common/validation/validation.js';

/**
 * Both fields must be strings (else 400 `validacion`); any other problem with them — empty,
 * malformed (a NUL or a lone surrogate included), forged, unknown, revoked, expired — is the one generic 401 `refresh_invalido`.
 */
export class RefreshDto {
  @ApiProperty({
    description: 'The last access token issued to this session; it may have expired (its signature, issuer and audience are still checked).',
    example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIxIn0.c2ln',
  })
  @IsString()
  @OpaqueText()
  accessToken!: string;

  @ApiProperty({
    description: 'The current refresh token of the session (valid once: it is rotated).',
    example: 'pX0bq2k7m1dQhI3a2m0sVn8Jd3qvKzq3n6B8mC1vY6E',
  })
  @IsString()
  @OpaqueText()
  refreshToken!: string;
}

export class TokenPairDto {
  @ApiProperty({ description: 'RS256 JWT access token' }) accessToken!: string;
  @ApiProperty({ description: 'The new refresh token; the presented one is now revoked' }) refreshToken!: string;
  @ApiProperty({ example: 'Bearer' }) tokenType!: 'Bearer';
  @ApiProperty({ example: 900, description: 'Access-token lifetime in seconds' }) expiresIn!: number;
}
