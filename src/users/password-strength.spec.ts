import { afterEach, describe, expect, it } from '@jest/globals';
import type { AppConfig } from '../common/config/index.js';
import { DomainError } from '../common/errors/domain-error.js';
import { AppMetrics } from '../observability/metrics.js';
import { PasswordStrength } from './password-strength.js';

describe('PasswordStrength queue', () => {
  let strength: PasswordStrength | undefined;
  afterEach(() => strength?.onModuleDestroy());

  it('refuses an estimate at once with 503 servicio_no_disponible when the queue is full, counted as back-pressure', async () => {
    const metrics = new AppMetrics();
    strength = new PasswordStrength({ passwordQueueMax: 0 } as AppConfig, metrics);
    const refusal = await strength.estimate('una-clave-cualquiera', []).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).code).toBe('servicio_no_disponible');
    const shed = (await metrics.requestsShed.get()).values;
    expect(shed.find((v) => v.labels.reason === 'strength_queue_full')?.value).toBe(1);
  });
});
