import { Param } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ParseIdPipe } from './parse-id.pipe.js';

/**
 * A path id (`@PathId() id: number`, `@PathId('medioId')`): ParseIdPipe on the raw segment (400
 * `validacion` unless a positive 32-bit integer in decimal), documented as an integer parameter.
 */
export function PathId(name = 'id'): ParameterDecorator {
  const param = Param(name, ParseIdPipe);
  return (target, propertyKey, index) => {
    param(target, propertyKey, index);
    if (propertyKey === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
    if (descriptor) ApiParam({ name, type: 'integer', description: 'A positive integer id.', example: 1 })(target, propertyKey, descriptor);
  };
}
