import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';

const MAX_INT = 2_147_483_647;

/** A path id: a positive 32-bit integer written in decimal, else 400 `validacion`. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: { data?: string }): number {
    const name = metadata.data ?? 'id';
    if (typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value)) {
      const n = Number(value);
      if (n <= MAX_INT) return n;
    }
    throw new ValidationFailedError([{ field: name, message: `${name} debe ser un entero positivo` }]);
  }
}
