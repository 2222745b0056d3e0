import { describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import type { AppConfig } from '../common/config/index.js';
import type { RequestContext } from '../common/context/request-context.js';
import { DomainError } from '../common/errors/domain-error.js';
import { bcryptConcurrency, PasswordHasher } from './password-hasher.js';

describe('bcryptConcurrency', () => {
  it('leaves one core to the event loop and never goes below one', () => {
    expect(bcryptConcurrency(1)).toBe(1);
    expect(bcryptConcurrency(2)).toBe(1);
    expect(bcryptConcurrency(8)).toBe(7);
  });
});

describe('PasswordHasher', () => {
  it('runs at most bcryptConcurrency() bcrypt operations at a time and answers each caller', async () => {
    const hasher = new PasswordHasher({ bcryptRounds: 4, passwordQueueMax: 64 } as AppConfig);
    const hash = await hasher.hash('correct horse battery');
    let running = 0;
    let peak = 0;
    const compare = bcrypt.compare.bind(bcrypt);
    // spied through its promise form: the declarations' last overload is the callback form
    const spy = jest
      .spyOn(bcrypt as { compare: (data: string | Buffer, encrypted: string) => Promise<boolean> }, 'compare')
      .mockImplementation(async (data: string | Buffer, encrypted: string) => {
        running += 1;
        peak = Math.max(peak, running);
        try {
          return await compare(data, encrypted);
        } finally {
          running -= 1;
        }
      });
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => hasher.verify(i % 2 ? 'correct horse battery' : 'wrong horse battery', hash)),
      );
      expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 1));
      expect(spy).toHaveBeenCalledTimes(12);
      expect(peak).toBe(bcryptConcurrency());
    } finally {
      spy.mockRestore();
    }
  });
});

describe('PasswordHasher queue bound', () => {
  /** The request context the hasher reads the client's address from; `ip` changes per call. */
  const context = { active: true, ip: 'client-a' };
  const hasherWith = (passwordQueueMax: number) =>
    new PasswordHasher({ bcryptRounds: 4, passwordQueueMax } as AppConfig, context as unknown as RequestContext);

  it('refuses at once with 503 servicio_no_disponible and Retry-After when PASSWORD_QUEUE_MAX wait: the client with the most waiting, so another client still gets a place', async () => {
    const hasher = hasherWith(3);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compare = bcrypt.compare.bind(bcrypt);
    // spied through its promise form: the declarations' last overload is the callback form
    const spy = jest
      .spyOn(bcrypt as { compare: (data: string | Buffer, encrypted: string) => Promise<boolean> }, 'compare')
      .mockImplementation((async (data: string, encrypted: string) => {
        await gate;
        return compare(data, encrypted);
      }) as never);
    const hash = await hasher.hash('correct horse battery');
    const verifyAs = (ip: string) => {
      context.ip = ip;
      return hasher.verify('correct horse battery', hash);
    };
    try {
      // client a fills the running slots and the queue
      const running = Array.from({ length: bcryptConcurrency() + 2 }, () => verifyAs('client-a'));
      const newestOfA = verifyAs('client-a').catch((err: unknown) => err);
      await new Promise((resolve) => setImmediate(resolve));
      expect(hasher.queueDepth).toBe(bcryptConcurrency() + 3);
      const refused = await verifyAs('client-a').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ code: 'servicio_no_disponible', status: 503 });
      expect(Number((refused as DomainError).headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
      // another client takes the place of a's newest, which is refused the same way
      const other = verifyAs('client-b');
      expect(await newestOfA).toMatchObject({ code: 'servicio_no_disponible', status: 503 });
      release();
      expect(await Promise.all([...running, other])).toEqual([...running, other].map(() => true));
      expect(hasher.queueDepth).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });
});
