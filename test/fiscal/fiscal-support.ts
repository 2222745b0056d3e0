import { expect } from '@jest/globals';
import type { HttpResult } from '../support/test-app.js';

/** A fiscal error answer: exactly `{error, message}` as JSON (docs/api.md "Fiscal tables"). */
export function expectFiscalError(res: HttpResult, status: number, error: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error, message: expect.any(String) } });
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.text).not.toMatch(/at .*\.js:\d+|SELECT|INSERT|UPDATE /);
}
