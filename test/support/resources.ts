import { expect } from '@jest/globals';
import type { HttpResult, TestApp } from './test-app.js';

/** The body of a create that must succeed: anything but 201 fails the test with the answer. */
export async function created<T = any>(request: Promise<HttpResult<T>>, what = 'create'): Promise<T> {
  const res = await request;
  if (res.status !== 201) throw new Error(`${what}: expected 201, got ${res.status} ${res.text}`);
  return res.body;
}

/** The representation a create answers for an activable resource: the fields sent, an id, active, timestamps in UTC. */
export const createdResource = (fields: object) => ({
  id: expect.any(Number),
  ...fields,
  activo: true,
  createdAt: expect.stringMatching(/Z$/),
  updatedAt: expect.stringMatching(/Z$/),
});

/** A create's answer: 201 with `expected`, and a Location at `${base}/{id}` whose GET (as `token`) answers the same representation. */
export async function expectCreatedAt(t: TestApp, res: HttpResult, base: string, expected: unknown, token: string): Promise<void> {
  expect(res.status).toBe(201);
  expect(res.body).toEqual(expected);
  expect(res.headers.location).toBe(`${base}/${res.body.id}`);
  const read = await t.get(res.headers.location as string, { token });
  expect(read.status).toBe(200);
  expect(read.body).toEqual(res.body);
}

/** The one `<targetType>.create` audit event of a resource: by `actorId`, with metadata `{after}`. */
export async function expectCreateAudited(t: TestApp, targetType: string, id: number, actorId: number, after: object): Promise<void> {
  const [event] = await t.auditEvents({ action: `${targetType}.create`, targetId: String(id) });
  expect(event).toMatchObject({ action: `${targetType}.create`, target_type: targetType, target_id: String(id), actor_user_id: actorId });
  expect(event.metadata).toEqual({ after });
}
