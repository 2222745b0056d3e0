import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import bcrypt from 'bcrypt';
import { throttleSubjects } from '../../src/auth/throttle/login-throttle.service.js';
import { FixedClock } from '../../src/common/context/clock.js';
import { type CreatedUser, TestApp, expectProblem } from '../support/test-app.js';

const LOGIN = '/api/v1/auth/login';
const WINDOW_S = 900; // the defaults: 10 failures per (username, IP), 100 per username, 50 per IP, in 15 minutes
const GLOBAL = 100;
let ipCounter = 0;
/** A fresh client address per test, so the per-IP limit of one test never touches another. */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

describe('auth: login throttling', () => {
  let t: TestApp;
  const clock = new FixedClock(new Date());

  beforeAll(async () => (t = await TestApp.create({ clock })));
  afterAll(() => t.close());
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const attempt = (user: { username: string }, password: string, remoteAddress: string, headers?: Record<string, string>) =>
    t.post(LOGIN, { username: user.username, password }, { remoteAddress, headers });
  const failTimes = async (user: { username: string }, n: number, ip: string) => {
    for (let i = 0; i < n; i++) expectProblem(await attempt(user, 'wrong-password-0', ip), 401, 'credenciales_invalidas');
  };

  it('answers the 11th attempt for a username inside the window with 429 demasiados_intentos, even with the right password', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    const res = await attempt(user, user.password, ip);
    expectProblem(res, 429, 'demasiados_intentos');
  });

  it('sends Retry-After with the seconds until the oldest counted failure leaves the window', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    clock.advance(100_000);
    const res = await attempt(user, user.password, ip);
    expectProblem(res, 429, 'demasiados_intentos');
    expect(res.headers['retry-after']).toBe(String(WINDOW_S - 100));
  });

  it('refuses with 429 without checking the password (no bcrypt compare)', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    const compare = jest.spyOn(bcrypt, 'compare');
    expectProblem(await attempt(user, user.password, ip), 429, 'demasiados_intentos');
    expect(compare).not.toHaveBeenCalled();
  });

  it('counts a username per client IP: 10 failures from one address do not lock the account out from another', async () => {
    const user = await t.createUser('cajero');
    const attacker = freshIp();
    await failTimes(user, 10, attacker);
    expectProblem(await attempt(user, user.password, attacker), 429, 'demasiados_intentos');
    expect((await attempt(user, user.password, freshIp())).status).toBe(200);
  });

  it('stops guessing spread over many addresses: after LOGIN_MAX_FAILURES_PER_USER_GLOBAL (100) failures from any IPs the username is 429 everywhere', async () => {
    const user = await t.createUser('cajero');
    // 5 failures from each of 20 addresses: under every per-(username, IP) and per-IP limit
    for (let i = 0; i < GLOBAL / 5; i++) await failTimes(user, 5, freshIp());
    expectProblem(await attempt(user, user.password, freshIp()), 429, 'demasiados_intentos');
  });

  it('does not let a re-cased username lock out the real one: 11 failures as ADMIN2 leave admin2 signing in', async () => {
    const real = await t.createUser('cajero', { username: `admin2_${ipCounter}` });
    const ip = freshIp();
    for (let i = 0; i < 11; i++) {
      expectProblem(await attempt({ username: real.username.toUpperCase() }, 'wrong-password-6', ip), 401, 'credenciales_invalidas');
    }
    expect((await attempt(real, real.password, ip)).status).toBe(200);
    expect((await attempt(real, real.password, freshIp())).status).toBe(200);
  });

  it('takes only the stored name as the user: trailing spaces and full-width letters are names that do not exist (SQL Server compares them equal)', async () => {
    const real = await t.createUser('cajero', { username: `wide${ipCounter}` });
    const fullWidth = [...real.username].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('');
    for (const username of [`${real.username} `, `${real.username}   `, fullWidth]) {
      const ip = freshIp();
      // the right password: a variant must not sign in as the user
      expectProblem(await attempt({ username }, real.password, ip), 401, 'credenciales_invalidas');
      const rows = await t.query('SELECT scope FROM login_failures WHERE subject = $1', [ip]);
      expect(rows.map((r) => r.scope)).toEqual(['ip']);
    }
    expect((await attempt(real, real.password, freshIp())).status).toBe(200);
  });

  it('counts a username that does not exist only toward the per-IP limit: 11 failures do not throttle it', async () => {
    const ip = freshIp();
    for (let i = 0; i < 11; i++)
      expectProblem(await attempt({ username: `ghost_${ipCounter}` }, 'wrong-password-7', ip), 401, 'credenciales_invalidas');
    const rows = await t.query('SELECT scope FROM login_failures WHERE subject = $1', [ip]);
    expect(rows.map((r) => r.scope)).toEqual(Array(11).fill('ip'));
  });

  it('logs a warning when it throttles an account that holds administracion:usuarios:gestionar, and none for other accounts', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const manager = await t.createUser('supervisor', { overrides: { granted: ['administracion:usuarios:gestionar'], denied: [] } });
    const cajero = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(cajero, 10, ip);
    expectProblem(await attempt(cajero, cajero.password, ip), 429, 'demasiados_intentos');
    expect(warn).not.toHaveBeenCalled();
    await failTimes(manager, 10, ip);
    expectProblem(await attempt(manager, manager.password, ip), 429, 'demasiados_intentos');
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ userId: manager.id }), expect.stringContaining('administracion:usuarios:gestionar'));
  });

  it('records security event login failure too_many_attempts for a refused attempt', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    await attempt(user, user.password, ip);
    const [event] = (await t.securityEvents('login')).filter((e) => e.attempted_username === user.username);
    expect(event).toMatchObject({ result: 'failure', failure_reason: 'too_many_attempts', ip });
  });

  it('lets the per-user limit expire with its window, refused attempts not extending it', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    for (let i = 0; i < 5; i++) {
      clock.advance(100_000);
      expectProblem(await attempt(user, user.password, ip), 429, 'demasiados_intentos');
    }
    clock.advance((WINDOW_S - 500) * 1000); // 900 s after the failures
    expect((await attempt(user, user.password, ip)).status).toBe(200);
  });

  it('keeps refusing one second before the window ends', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 10, ip);
    clock.advance((WINDOW_S - 1) * 1000);
    const res = await attempt(user, user.password, ip);
    expectProblem(res, 429, 'demasiados_intentos');
    expect(res.headers['retry-after']).toBe('1');
  });

  it("resets the username's count on a successful sign-in", async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 9, ip);
    expect((await attempt(user, user.password, ip)).status).toBe(200);
    await failTimes(user, 9, ip);
    expect((await attempt(user, user.password, ip)).status).toBe(200);
  });

  it('counts failures per client IP: after 50 from one address, the next attempt from it is 429 whatever the username', async () => {
    const ip = freshIp();
    const users: CreatedUser[] = [];
    for (let i = 0; i < 6; i++) users.push(await t.createUser('cajero'));
    for (let i = 0; i < 50; i++) expectProblem(await attempt(users[i % 5]!, 'wrong-password-1', ip), 401, 'credenciales_invalidas');
    const res = await attempt(users[5]!, users[5]!.password, ip);
    expectProblem(res, 429, 'demasiados_intentos');
    expect(Number(res.headers['retry-after'])).toBe(WINDOW_S);
  });

  it('does not lock a user out from another address when one IP exceeds its limit', async () => {
    const ip = freshIp();
    const victim = await t.createUser('cajero');
    for (let i = 0; i < 50; i++) await attempt({ username: `spray_${i}` }, 'wrong-password-2', ip);
    expectProblem(await attempt(victim, victim.password, ip), 429, 'demasiados_intentos');
    expect((await attempt(victim, victim.password, freshIp())).status).toBe(200);
  });

  it('takes the client IP from the connection, not from X-Forwarded-For, when TRUST_PROXY is not configured', async () => {
    const ip = freshIp();
    for (let i = 0; i < 50; i++) await attempt({ username: `xff_${i}` }, 'wrong-password-3', ip, { 'x-forwarded-for': `172.16.0.${i + 1}` });
    const victim = await t.createUser('cajero');
    expectProblem(await attempt(victim, victim.password, ip, { 'x-forwarded-for': '172.16.1.1' }), 429, 'demasiados_intentos');
  });

  it('does not count malformed requests (400)', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    for (let i = 0; i < 12; i++) {
      expectProblem(await t.post(LOGIN, { username: user.username, password: 'x'.repeat(73) }, { remoteAddress: ip }), 400, 'validacion');
      expectProblem(await t.post(LOGIN, { username: user.username }, { remoteAddress: ip }), 400, 'validacion');
    }
    expect((await attempt(user, user.password, ip)).status).toBe(200);
  });

  it('holds the limit under 20 concurrent wrong attempts: each sees the attempts admitted before it, so the excess is 429, never a 5xx', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    // open every pooled connection first, so the 20 attempts really overlap in the database
    await Promise.all(Array.from({ length: t.config.db.poolSize }, () => t.query('SELECT 1')));
    const results = await Promise.all(Array.from({ length: 20 }, () => attempt(user, 'wrong-password-4', ip)));
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    const checked = statuses.filter((s) => s === 401).length;
    // the first 10 are always checked; an attempt can miss only rows whose insert has not committed
    // yet, so the overshoot is bounded by the attempts in flight (the pool), never the whole burst
    expect(checked).toBeGreaterThanOrEqual(10);
    expect(checked).toBeLessThan(10 + t.config.db.poolSize);
  });

  it('lets correct sign-ins made at once pass the limit they fill while in flight: 16 of one account, 60 of six accounts from one address', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await Promise.all(Array.from({ length: t.config.db.poolSize }, () => t.query('SELECT 1')));
    const own = await Promise.all(Array.from({ length: 16 }, () => attempt(user, user.password, ip)));
    expect(own.map((r) => r.status)).toEqual(Array(16).fill(200));
    // an office behind one address: none of its 60 sign-ins failed, so none is refused
    const office = freshIp();
    const colleagues = await Promise.all(Array.from({ length: 6 }, () => t.createUser('cajero')));
    const all = await Promise.all(colleagues.flatMap((c) => Array.from({ length: 10 }, () => attempt(c, c.password, office))));
    expect(all.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.code}`)).toEqual([]);
    // in flight while they were waited for, then settled: none left behind as a failure
    const [{ n }] = await t.query<{ n: number }>('SELECT count(*) AS n FROM login_failures WHERE subject = $1', [office]);
    expect(Number(n)).toBe(0);
  });

  it('still refuses with 429 the attempts that wait for failures in flight to end', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 9, ip);
    const burst = await Promise.all(Array.from({ length: 5 }, () => attempt(user, 'wrong-password-6', ip)));
    const statuses = burst.map((r) => r.status).sort();
    expect(statuses[0]).toBe(401);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expectProblem(await attempt(user, user.password, ip), 429, 'demasiados_intentos');
  });

  it('keeps only the current window in the store: older rows are deleted at the next attempt', async () => {
    const user = await t.createUser('cajero');
    const ip = freshIp();
    await failTimes(user, 3, ip);
    clock.advance((WINDOW_S + 1) * 1000);
    await attempt(user, 'wrong-password-5', ip);
    const [{ n }] = await t.query<{ n: number }>('SELECT count(*) AS n FROM login_failures WHERE occurred_at <= $1', [
      new Date(clock.now().getTime() - WINDOW_S * 1000),
    ]);
    expect(Number(n)).toBe(0);
    const { pair, global } = throttleSubjects(user.username, ip);
    expect(await t.query('SELECT id FROM login_failures WHERE scope = $1 AND subject = $2', ['user', pair])).toHaveLength(1);
    expect(await t.query('SELECT id FROM login_failures WHERE scope = $1 AND subject = $2', ['user', global])).toHaveLength(1);
  });
});
