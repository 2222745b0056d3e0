import { applyDecorators, Injectable, type PipeTransform } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { PathParam } from '../common/validation/path-id.js';
import { isRoleCode, ROLE_CODE_MAX_LENGTH, ROLE_CODE_PATTERN } from './roles.rules.js';

/** A `{codigo}` path segment of /roles: checked against `^[a-z][a-z0-9_]*$` before anything else (400). */
@Injectable()
export class ParseRoleCodePipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (isRoleCode(value)) return value;
    throw new ValidationFailedError([
      { field: 'codigo', message: `codigo debe cumplir ^[a-z][a-z0-9_]*$ (hasta ${ROLE_CODE_MAX_LENGTH} caracteres)` },
    ]);
  }
}

/** `@PathRoleCode() codigo: string`: the pipe above, documented with the pattern and length it checks. */
export function PathRoleCode(): ParameterDecorator {
  return PathParam('codigo', ParseRoleCodePipe, {
    type: 'string',
    pattern: ROLE_CODE_PATTERN.source,
    maxLength: ROLE_CODE_MAX_LENGTH,
    description: 'A role code: lowercase letters, digits and `_`, a letter first.',
    example: 'admin',
  });
}

/**
 * A role code in a body or a query (a role's `codigo`, a user's `rol`): a string of at most
 * ROLE_CODE_MAX_LENGTH characters matching ROLE_CODE_PATTERN, and the document says both (merged
 * under the field's own `@ApiProperty`, which keeps saying whether it is required).
 */
export function IsRoleCode(): PropertyDecorator {
  return (target, propertyKey) =>
    applyDecorators(
      Matches(ROLE_CODE_PATTERN, { message: `${String(propertyKey)} debe cumplir ^[a-z][a-z0-9_]*$` }),
      MaxLength(ROLE_CODE_MAX_LENGTH),
      IsString(),
      ApiProperty({ pattern: ROLE_CODE_PATTERN.source, maxLength: ROLE_CODE_MAX_LENGTH }),
    )(target, propertyKey);
}
