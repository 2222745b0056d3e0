import { describe, expect, it } from '@jest/globals';
import { ClsServiceManager } from 'nestjs-cls';
import type { RequestStore } from '../context/request-context.js';
import { QueryFailedError } from 'typeorm';
import { errorForLog, requestLogFields } from './logging.js';

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

describe('errorForLog (pino err serializer)', () => {
  it("keeps what failed and drops the values it was given: a failed insert's parameters, the row its detail quotes", () => {
    const driverError = Object.assign(new Error('new row for relation "users" violates check constraint "ck_users_email"'), {
      code: '23514',
      table: 'users',
      constraint: 'ck_users_email',
      detail: 'Failing row contains (7, leaktest2, $2b$12$Cd2hb6, l2@t.example.com).',
    });
    const hash = '$2b$12$Cd2hb6abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH';
    const err = new QueryFailedError(
      'INSERT INTO "users" ("username", "password_hash", "email") VALUES ($1, $2, $3)',
      ['leaktest2', hash, 'l2@t.example.com'],
      driverError,
    );
    const logged = JSON.stringify(errorForLog(err));
    for (const value of ['leaktest2', 'Cd2hb6', 'l2@t.example.com']) expect(logged).not.toContain(value);
    expect(errorForLog(err)).toMatchObject({
      type: 'QueryFailedError',
      message: driverError.message,
      query: expect.stringContaining('INSERT INTO "users"'),
      driverError: { code: '23514', table: 'users', constraint: 'ck_users_email' },
    });
  });
});
