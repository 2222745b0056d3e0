import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { AppConfig } from '../../common/config/index.js';
import type { AuditSealService } from '../integrity/audit-seal.service.js';
import type { JobRunOptions } from '../maintenance/maintenance-job.runner.js';
import { AuditSealJob } from './audit-seal.job.js';

/** The seal's schedule: the same UTC instants on every replica, with a lock hold shorter than the period. */
describe('AuditSealJob', () => {
  let runs: Array<{ at: string; options: JobRunOptions }>;
  let registry: SchedulerRegistry;

  const jobEvery = (minutes: number) => {
    const service = {
      run: async (options: JobRunOptions) => {
        runs.push({ at: new Date().toISOString(), options });
        return { job: 'audit-seal', status: 'ok', startedAt: '', finishedAt: '' };
      },
    } as unknown as AuditSealService;
    return new AuditSealJob(service, registry, { auditSeal: { minutes } } as AppConfig);
  };

  beforeEach(() => {
    runs = [];
    registry = new SchedulerRegistry();
    jest.useFakeTimers({ now: new Date('2026-11-24T12:03:20.500Z') });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs at each multiple of the period on the UTC clock, whenever the process started, holding the lock 60 s', async () => {
    const job = jobEvery(5);
    job.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(99_000);
    expect(runs).toEqual([]);
    await jest.advanceTimersByTimeAsync(500);
    expect(runs).toEqual([{ at: '2026-11-24T12:05:00.000Z', options: { scheduled: true, lockHoldMs: 60_000 } }]);
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(runs.map((r) => r.at)).toEqual(['2026-11-24T12:05:00.000Z', '2026-11-24T12:10:00.000Z', '2026-11-24T12:15:00.000Z']);
    await job.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(runs).toHaveLength(3);
    expect(registry.doesExist('timeout', AuditSealJob.NAME)).toBe(false);
  });

  it('holds the lock half the period when the period is shorter than two minutes', async () => {
    const job = jobEvery(1);
    job.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(40_000);
    expect(runs).toEqual([{ at: '2026-11-24T12:04:00.000Z', options: { scheduled: true, lockHoldMs: 30_000 } }]);
    await job.onApplicationShutdown();
  });
});
