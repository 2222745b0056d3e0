import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString } from 'class-validator';
import { MAX_PASSWORD_BYTES } from '../../auth/password-limits.js';
import { MaxBytes } from '../../common/validation/max-bytes.js';

export class ChangeOwnPasswordDto {
  @ApiProperty({
    format: 'password',
    minLength: 1,
    maxLength: 72,
    description:
      'The current password (400 `password_actual_incorrecto` when wrong); at most 72 bytes (UTF-8), never truncated (else 400 `validacion`).',
  })
  @IsString()
  @IsNotEmpty()
  @MaxBytes(MAX_PASSWORD_BYTES)
  currentPassword!: string;

  @ApiProperty({
    format: 'password',
    description:
      "Policy: 10..72 bytes (UTF-8), not the username, at least two character classes, different from the current one, and hard enough to guess: zxcvbn-ts (common and Spanish dictionaries, the user's username, nombre, apellido and email as context) scores it 3 or 4; else 400 `password_debil`.",
  })
  @IsString()
  newPassword!: string;
}

export class TemporaryPasswordDto {
  @ApiProperty({ example: 'q7RkT2mVx9PfaB3n', description: 'Shown once: it is stored only as a bcrypt hash and never audited or logged.' })
  temporaryPassword!: string;
}
