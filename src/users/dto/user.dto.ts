import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsString, Matches } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/page.js';
import { SortQuery } from '../../common/pagination/sort.js';
import { Trim } from '../../common/validation/transforms.js';
import { VisibleText } from '../../common/validation/visible-text.js';
import { ImmutableField } from '../../common/validation/validation.js';
import { IsRoleCode } from '../../roles/role-code.pipe.js';
import type { UserEntity } from '../user.entity.js';
import { ActivoFilter, RequiredText, SearchText, StoredLength } from '../../common/validation/fields.js';

/**
 * Usernames: 3 to 50 characters of letters, digits, `.`, `_` and `-` (no spaces, nothing a log
 * or a URL would need to escape). Unique and case-sensitive on both engines, like sign-in.
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{3,50}$/;

// Emails need no TLD: back-office users live on intranet domains too (the bootstrap admin is admin@localhost).
const ROL = { example: 'supervisor', description: 'Code of an existing active role (else 400).' };

/** The editable fields of a user, shared by create and update. */
export class UserProfileDto {
  @ApiProperty({ example: 'Juan', maxLength: 100 })
  @RequiredText(100)
  nombre!: string;

  @ApiProperty({ example: 'Pérez', maxLength: 100 })
  @RequiredText(100)
  apellido!: string;

  @ApiProperty({
    example: 'juan.perez@example.com',
    format: 'email',
    maxLength: 254,
    description: 'An e-mail address (a local part of at most 64 characters; a domain without a TLD, e.g. admin@localhost, is accepted).',
  })
  @Trim()
  @IsString()
  @StoredLength(254)
  // validator's isEmail takes any code point above U+00A0 in a domain, a bidi override or a
  // zero-width space included: an address shown in the console must read as what it is
  @VisibleText()
  @IsEmail({ require_tld: false }, { message: 'email debe ser una dirección de correo (se admiten dominios sin TLD, p. ej. admin@localhost)' })
  email!: string;

  @ApiProperty(ROL)
  @IsRoleCode()
  rol!: string;
}

export class CreateUserDto extends UserProfileDto {
  @ApiProperty({
    example: 'juan.perez',
    pattern: USERNAME_PATTERN.source,
    description: '3..50 characters of [A-Za-z0-9._-]; unique, case-sensitive (409 `duplicado`); immutable.',
  })
  @IsString()
  @Matches(USERNAME_PATTERN, { message: 'username debe tener de 3 a 50 caracteres de [A-Za-z0-9._-]' })
  username!: string;

  @ApiProperty({
    example: 'Cambiar-esta-clave-1',
    format: 'password',
    description:
      'Write-only. Policy: 10..72 bytes (UTF-8), not the username, at least two character classes (lowercase, uppercase, digits, other), and hard enough to guess: zxcvbn-ts (common and Spanish dictionaries, the username, nombre, apellido and email as context) scores it 3 or 4; else 400 `password_debil`.',
  })
  @IsString()
  password!: string;
}

/** PUT replaces the editable fields; `username` is immutable (400 `campo_inmutable`). */
export class UpdateUserDto extends UserProfileDto {
  /** not accepted: 400 campo_inmutable */
  @ImmutableField()
  username?: unknown;
}

/** Fields GET /api/v1/users sorts by. */
export const USER_SORT_FIELDS = ['username', 'nombre', 'apellido', 'email', 'createdAt', 'ultimoLogin'] as const;

export class UsersQueryDto extends PageQueryDto {
  @SortQuery(USER_SORT_FIELDS, '`username`')
  sort?: string;

  @SearchText('Case-insensitive substring of username, nombre, apellido or email.', 'perez')
  search?: string;

  @ApiPropertyOptional({ description: 'Only users of this role (code).', example: 'cajero' })
  @IsOptional()
  @IsRoleCode()
  rol?: string;

  @ActivoFilter('users')
  activo?: boolean;
}

/** A user as the API shows it: never a password or a hash. */
export class UsuarioDto {
  @ApiProperty({ example: 7 }) id!: number;
  @ApiProperty({ example: 'juan.perez' }) username!: string;
  @ApiProperty({ example: 'Juan' }) nombre!: string;
  @ApiProperty({ example: 'Pérez' }) apellido!: string;
  @ApiProperty({ example: 'juan.perez@example.com' }) email!: string;
  @ApiProperty({ example: 'supervisor', description: 'Role code.' }) rol!: string;
  @ApiProperty() activo!: boolean;
  @ApiProperty({ description: 'Informational: the frontend asks for a new password; the service restricts nothing.' }) mustChangePassword!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last sign-in.' }) ultimoLogin!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static of(u: Omit<UserEntity, 'passwordHash' | 'permissionOverrides' | 'roleId' | 'version' | 'permisosVersion'>, rol: string): UsuarioDto {
    return {
      id: u.id,
      username: u.username,
      nombre: u.nombre,
      apellido: u.apellido,
      email: u.email,
      rol,
      activo: Boolean(u.activo),
      mustChangePassword: Boolean(u.mustChangePassword),
      ultimoLogin: u.ultimoLogin ? new Date(u.ultimoLogin).toISOString() : null,
      createdAt: new Date(u.createdAt).toISOString(),
      updatedAt: new Date(u.updatedAt).toISOString(),
    };
  }
}

/** The answer of POST /api/v1/users: the same shape as UsuarioDto (`UsuarioCreatedDto` in the OpenAPI document). */
export class UsuarioCreatedDto extends UsuarioDto {}
