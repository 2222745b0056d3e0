import { Injectable, Param, type PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { sessionIdFromSid } from './token.service.js';

/** A session id path segment: a UUID (answered in lower case), else 400 `validacion`. */
@Injectable()
export class ParseSessionIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: { data?: string }): string {
    const id = sessionIdFromSid(value);
    if (id !== undefined) return id;
    const name = metadata.data ?? 'id';
    throw new ValidationFailedError([{ field: name, message: `${name} debe ser un UUID` }]);
  }
}

/** `@PathSessionId('sessionId') id: string`: the pipe above, documented as a uuid parameter. */
export function PathSessionId(name = 'id'): ParameterDecorator {
  const param = Param(name, ParseSessionIdPipe);
  return (target, propertyKey, index) => {
    param(target, propertyKey, index);
    if (propertyKey === undefined) return;
    const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
    if (descriptor) {
      ApiParam({ name, type: 'string', format: 'uuid', description: 'A session id (the `sid` claim of its access tokens).' })(
        target,
        propertyKey,
        descriptor,
      );
    }
  };
}
