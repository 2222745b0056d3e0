import { describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import type { AppConfig } from '../common/config/index.js';
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
    const spy = jest.spyOn(bcrypt, 'compare').mockImplementation(async (data: string | Buffer, encrypted: string) => {
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
  it('refuses at once with 503 servicio_no_disponible and Retry-After when PASSWORD_QUEUE_MAX operations wait, and counts them in queueDepth', async () => {
    const hasher = new PasswordHasher({ bcryptRounds: 4, passwordQueueMax: 2 } as AppConfig);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compare = bcrypt.compare.bind(bcrypt);
    const spy = jest.spyOn(bcrypt, 'compare').mockImplementation((async (data: string, encrypted: string) => {
      await gate;
      return compare(data, encrypted);
    }) as never);
    try {
      const hash = await hasher.hash('correct horse battery');
      const running = Array.from({ length: bcryptConcurrency() + 2 }, () => hasher.verify('correct horse battery', hash));
      await new Promise((resolve) => setImmediate(resolve));
      expect(hasher.queueDepth).toBe(bcryptConcurrency() + 2);
      const refused = await hasher.verify('correct horse battery', hash).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ code: 'servicio_no_disponible', status: 503 });
      expect(Number((refused as DomainError).headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
      release();
      expect(await Promise.all(running)).toEqual(running.map(() => true));
      expect(hasher.queueDepth).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });
});
