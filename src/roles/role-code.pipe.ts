import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { isRoleCode, ROLE_CODE_MAX_LENGTH } from './roles.rules.js';

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
