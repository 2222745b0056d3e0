import { describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import type { AppConfig } from '../common/config/index.js';
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
    const hasher = new PasswordHasher({ bcryptRounds: 4 } as AppConfig);
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
