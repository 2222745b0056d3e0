import { expect, it } from '@jest/globals';
import type { TestApp } from './test-app.js';

/** How to reach one kind of resource that is switched off and on with `/deactivate` and `/reactivate`. */
export interface ActivationSubject {
  t: TestApp;
  /** token of a caller allowed to switch it */
  token: string;
  /** the caller's user id, expected as the audit actor */
  actorId: number;
  /** the resource's own URL, without the action: `/api/v1/admin/medios/7` */
  url: (id: number | string) => string;
  /** creates an active resource and returns its representation (with `id`) */
  create: () => Promise<{ id: number | string }>;
  /** audit target type, also the prefix of the actions (`medio` → `medio.deactivate`) */
  targetType: string;
  /** fields the answers must still carry, from the created representation */
  keeps?: string[];
}

/**
 * The activation rule every resource shares: deactivate answers 200 with `activo: false` and
 * audits `<type>.deactivate {before, after}` once; a repeat is 200 and audits nothing; reactivate
 * likewise; reactivating an active resource is a 200 no-op with no audit event.
 */
export function itSwitchesActivationIdempotently(name: string, subject: () => ActivationSubject): void {
  const post = (s: ActivationSubject, id: number | string, action: 'deactivate' | 'reactivate') =>
    s.t.post(`${s.url(id)}/${action}`, undefined, { token: s.token });

  const expectOneEvent = async (s: ActivationSubject, id: number | string, action: 'deactivate' | 'reactivate') => {
    const events = await s.t.auditEvents({ action: `${s.targetType}.${action}`, targetId: String(id) });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ target_type: s.targetType, actor_user_id: s.actorId });
    const [before, after] = action === 'deactivate' ? [true, false] : [false, true];
    expect(events[0].metadata).toEqual({ before: { activo: before }, after: { activo: after } });
  };

  const kept = (s: ActivationSubject, created: object) =>
    Object.fromEntries([...(s.keeps ?? []), 'id'].map((field) => [field, (created as Record<string, unknown>)[field]]));

  it(`deactivates a ${name} with 200 and one {before, after} audit event; a repeat is 200 with no new event`, async () => {
    const s = subject();
    const created = await s.create();
    const first = await post(s, created.id, 'deactivate');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ...kept(s, created), activo: false });
    const repeat = await post(s, created.id, 'deactivate');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ ...kept(s, created), activo: false });
    await expectOneEvent(s, created.id, 'deactivate');
  });

  it(`reactivates a ${name} with 200 and one {before, after} audit event; a repeat is 200 with no new event`, async () => {
    const s = subject();
    const created = await s.create();
    expect((await post(s, created.id, 'deactivate')).status).toBe(200);
    const first = await post(s, created.id, 'reactivate');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ...kept(s, created), activo: true });
    const repeat = await post(s, created.id, 'reactivate');
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ ...kept(s, created), activo: true });
    await expectOneEvent(s, created.id, 'reactivate');
  });

  it(`reactivating an active ${name} is a 200 no-op with no audit event`, async () => {
    const s = subject();
    const created = await s.create();
    const res = await post(s, created.id, 'reactivate');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...kept(s, created), activo: true });
    expect(await s.t.auditEvents({ action: `${s.targetType}.reactivate`, targetId: String(created.id) })).toHaveLength(0);
  });
}
