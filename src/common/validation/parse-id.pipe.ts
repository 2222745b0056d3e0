import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';
import { parseId } from './fields.js';

/** A path id: a positive 32-bit integer written in decimal, else 400 `validacion`. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: { data?: string }): number {
    const name = metadata.data ?? 'id';
    const id = typeof value === 'string' ? parseId(value) : undefined;
    if (id !== undefined) return id;
    throw new ValidationFailedError([{ field: name, message: `${name} debe ser un entero positivo` }]);
  }
}
