import { describe, expect, it } from '@jest/globals';
import { ClsServiceManager } from 'nestjs-cls';
import type { RequestStore } from '../context/request-context.js';
import { requestLogFields } from './logging.js';

describe('requestLogFields (pino mixin)', () => {
  const cls = ClsServiceManager.getClsService<RequestStore>();

  it("gives a line written during a request that request's correlation id", () => {
    cls.run(() => {
      cls.set('correlationId', '0b0e6c36-7d1c-4e0e-9d64-1d5b4f0f5d11');
      expect(requestLogFields()).toEqual({ correlationId: '0b0e6c36-7d1c-4e0e-9d64-1d5b4f0f5d11' });
    });
  });

  it('adds nothing outside a request (start-up, jobs)', () => {
    expect(requestLogFields()).toEqual({});
    cls.run(() => expect(requestLogFields()).toEqual({}));
  });
});
