import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MaxBytes } from '../../common/validation/max-bytes.js';
import { MAX_PASSWORD_BYTES } from '../password-hasher.js';

export class LoginDto {
  @ApiProperty({ example: 'admin', maxLength: 50 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  username!: string;

  @ApiProperty({ example: 'la-contraseña', description: 'Used exactly as sent (no trimming); at most 72 bytes (UTF-8).', format: 'password' })
  @IsString()
  @IsNotEmpty()
  @MaxBytes(MAX_PASSWORD_BYTES)
  password!: string;
}

export class LoginResponseDto {
  @ApiProperty({ description: 'RS256 JWT access token' }) accessToken!: string;
  @ApiProperty({ description: 'Opaque refresh token; present it once to /auth/refresh' }) refreshToken!: string;
  @ApiProperty({ example: 'Bearer' }) tokenType!: 'Bearer';
  @ApiProperty({ example: 900, description: 'Access-token lifetime in seconds' }) expiresIn!: number;
  @ApiProperty({ example: 'admin' }) username!: string;
  @ApiProperty() mustChangePassword!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'The previous login (null on a first login)' }) ultimoLogin!:
    string | null;
  @ApiProperty({ type: [String], description: 'Effective permission codes, sorted' }) permisos!: string[];
}

export class MeDto {
  @ApiProperty() id!: number;
  @ApiProperty() username!: string;
  @ApiProperty() nombre!: string;
  @ApiProperty() apellido!: string;
  @ApiProperty() email!: string;
  @ApiProperty() rol!: string;
  @ApiProperty() mustChangePassword!: boolean;
  @ApiProperty({ type: [String] }) permisos!: string[];
}
