import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MaxBytes } from '../../common/validation/max-bytes.js';
import { MAX_PASSWORD_BYTES } from '../password-limits.js';
import { TokenPairDto } from './refresh.dto.js';
import { PERMISSION_CODE_SCHEMA } from '../permissions.js';

export class LoginDto {
  @ApiProperty({ example: 'admin', minLength: 1, maxLength: 50 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  username!: string;

  @ApiProperty({
    example: 'la-contraseña',
    description: 'Used exactly as sent (no trimming); at most 72 bytes (UTF-8).',
    format: 'password',
    minLength: 1,
    maxLength: 72,
  })
  @IsString()
  @IsNotEmpty()
  @MaxBytes(MAX_PASSWORD_BYTES)
  password!: string;
}

/** A sign-in answers a token pair and what the console shows of the user. */
export class LoginResponseDto extends TokenPairDto {
  @ApiProperty({ description: 'Opaque refresh token; present it once to /auth/refresh' }) override refreshToken!: string;
  @ApiProperty({ example: 'admin' }) username!: string;
  @ApiProperty() mustChangePassword!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The previous login (null on a first login)' }) ultimoLogin!:
    string | null;
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true, description: 'Effective permission codes, sorted' }) permisos!: string[];
}

export class MeDto {
  @ApiProperty() id!: number;
  @ApiProperty() username!: string;
  @ApiProperty() nombre!: string;
  @ApiProperty() apellido!: string;
  @ApiProperty() email!: string;
  @ApiProperty() rol!: string;
  @ApiProperty() mustChangePassword!: boolean;
  @ApiProperty({ ...PERMISSION_CODE_SCHEMA, isArray: true, description: 'Effective permission codes, sorted' }) permisos!: string[];
}
