import { expect } from '@jest/globals';
import { created } from '../support/resources.js';
import type { TestApp } from '../support/test-app.js';

export const MEDIOS = '/api/v1/admin/medios';

let seq = 0;
/** A code no other test of the file's database uses: `<prefix>_<pid>_<n>`. */
export const uniqueCode = (prefix: string) => `${prefix}_${process.pid}_${++seq}`;

/** An active medio created through the API as `token`. */
export const newMedio = (t: TestApp, token: string, nombre = 'Medio'): Promise<any> =>
  created(t.post(MEDIOS, { codigo: uniqueCode('M'), nombre }, { token }));

/** Deactivates a medio through the API as `token` (200 expected). */
export async function deactivateMedioAs(t: TestApp, token: string, id: number): Promise<void> {
  expect((await t.post(`${MEDIOS}/${id}/deactivate`, undefined, { token })).status).toBe(200);
}
