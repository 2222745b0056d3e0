import bcrypt from 'bcrypt';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreatedUser, HttpResult } from '../support/test-app.js';
import { recordFigures } from './support/figures.js';
import { ReliabilityApp } from './support/reliability-app.js';
import { whileRunning } from '../support/concurrency.js';

/**
 * No caller can starve the service: the attacks of the abuse-resistance rules, measured from the
 * victim's side. A user without permissions sends 40 concurrent password changes with a wrong
 * current password (bcrypt at the production cost) while another user's guarded reads and the
 * readiness probe keep running; anonymous clients send 70,000-key bodies while the liveness probe
 * keeps running. The assertions are on answers only; latencies are recorded for RELIABILITY.md.
 */

interface Timed<T> {
  ms: number;
  value: T;
}

async function timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const countBy = (statuses: number[]) => statuses.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});
const round = (ms: number) => Math.round(ms * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

describe('starvation: one caller cannot make other callers fail or wait', () => {
  let r: ReliabilityApp;
  let admin: string;
  let attacker: CreatedUser;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    r = await ReliabilityApp.create({ BCRYPT_ROUNDS: '12' });
    admin = await r.t.adminToken();
    attacker = await r.t.createUser('cajero');
    // createUser's sign-in replaced the attacker's cost-4 hash with one of BCRYPT_ROUNDS; back at
    // cost 4, as before sign-in replaced hashes of another cost: the attack's forty compares end
    // within the throttle's wait for attempts in flight (3 s), and its answers stay 400 or 429
    await r.t.query('UPDATE users SET password_hash = $1 WHERE id = $2', [await bcrypt.hash(attacker.password, 4), attacker.id]);
  });
  afterAll(async () => {
    if (figures.storm && figures.manyKeys) {
      const storm = figures.storm as { victimRequests: number; victimFailures: number; worstVictimMs: number };
      const keys = figures.manyKeys as { probes: number; probeFailures: number; worstProbeMs: number };
      recordFigures(
        'starvation',
        `starvation: storm ${storm.victimRequests} victim answers, ${storm.victimFailures} not 200, worst ${storm.worstVictimMs} ms; many keys ${keys.probes} probes, ${keys.probeFailures} not 200, worst ${keys.worstProbeMs} ms`,
        figures,
      );
    }
    await r?.close();
  });

  it("keeps another user's guarded reads and /health/ready at 200 during 40 concurrent wrong password changes", async () => {
    await r.warmPool();
    const started = performance.now();
    const storm = Promise.all(
      Array.from({ length: 40 }, () =>
        timed(() =>
          r.t.put(
            '/api/v1/users/me/password',
            { currentPassword: 'Not-the-password-1', newPassword: 'Otra-clave-segura-3' },
            { token: attacker.token, remoteAddress: '10.99.0.1' },
          ),
        ),
      ),
    );
    const { attack, victim } = await whileRunning(storm, () =>
      Promise.all([timed(() => r.t.get('/api/v1/users', { token: admin, query: { pageSize: 5 } })), timed(() => r.t.get('/health/ready'))]),
    );
    const stormMs = performance.now() - started;
    const victimAnswers = victim.flat() as Array<Timed<HttpResult>>;
    const victimFailures = victimAnswers.filter((a) => a.value.status !== 200).length;
    figures.storm = {
      attackRequests: attack.length,
      attackStatuses: countBy(attack.map((a) => a.value.status)),
      attackServerErrors: attack.filter((a) => a.value.status >= 500).length,
      stormMs: Math.round(stormMs),
      victimRequests: victimAnswers.length,
      victimFailures,
      worstVictimMs: round(Math.max(...victimAnswers.map((a) => a.ms))),
      medianVictimMs: round(median(victimAnswers.map((a) => a.ms))),
      bcryptRounds: r.t.config.bcryptRounds,
      poolSize: r.t.config.db.poolSize,
    };
    expect(victimFailures).toBe(0);
    expect(attack.every((a) => a.value.status === 400 || a.value.status === 429)).toBe(true);
  });

  it('keeps /health/live at 200 while three 70,000-key bodies are refused with 400', async () => {
    const body: Record<string, number> = {};
    for (let i = 0; i < 70_000; i++) body[`k${i}`] = i;
    const raw = JSON.stringify(body);
    const attack = Promise.all(Array.from({ length: 3 }, () => timed(() => r.t.request('POST', '/api/v1/users', { raw, token: admin }))));
    const { attack: answers, victim } = await whileRunning(attack, () => timed(() => r.t.get('/health/live')));
    const login = await timed(() => r.t.request('POST', '/api/v1/auth/login', { raw }));
    figures.manyKeys = {
      bodies: answers.length,
      bodyBytes: raw.length,
      statuses: countBy(answers.map((a) => a.value.status)),
      worstAnswerMs: round(Math.max(...answers.map((a) => a.ms))),
      answerBytes: Math.max(...answers.map((a) => a.value.text.length)),
      signInStatus: login.value.status,
      signInAnswerMs: round(login.ms),
      probes: victim.length,
      probeFailures: victim.filter((v) => v.value.status !== 200).length,
      worstProbeMs: round(Math.max(...victim.map((v) => v.ms))),
    };
    expect(answers.every((a) => a.value.status === 400)).toBe(true);
    expect(login.value.status).toBe(413);
    expect(victim.every((v) => v.value.status === 200)).toBe(true);
  });
});
