import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { DatabasePrerequisitesCheck } from './database-prerequisites.check.js';
import type { SqlDialect } from './dialects/index.js';

describe('DatabasePrerequisitesCheck', () => {
  const check = (prerequisiteProblems: () => Promise<string[]>) =>
    new DatabasePrerequisitesCheck({ prerequisiteProblems } as unknown as SqlDialect, {} as DataSource);

  it('logs one warning per problem the dialect reports', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await check(async () => ['first', 'second']).onApplicationBootstrap();
      expect(warn.mock.calls.map((c) => c[0])).toEqual(['first', 'second']);
    } finally {
      warn.mockRestore();
    }
  });

  it('warns, and lets the start go on, when the settings cannot be read', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await expect(
        check(async () => {
          throw new Error('permission denied');
        }).onApplicationBootstrap(),
      ).resolves.toBeUndefined();
      expect(warn.mock.calls.map((c) => c[0])).toEqual(["could not check the database's settings: permission denied"]);
    } finally {
      warn.mockRestore();
    }
  });
});
