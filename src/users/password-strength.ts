import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { Piscina } from 'piscina';
import { APP_CONFIG, type AppConfig } from '../common/config/index.js';
import { DomainError } from '../common/errors/domain-error.js';
import { AppMetrics } from '../observability/metrics.js';
import type { StrengthResult, StrengthTask } from './password-strength.worker.js';

/** The compiled worker beside this file (dist), or its source when the code runs from source (tests). */
const WORKER = new URL(`./password-strength.worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * zxcvbn-ts strength estimates, computed off the event loop in one worker thread (piscina). The
 * worker starts with the first estimate and ends after a minute without one, so an idle service
 * does not keep the dictionaries in memory. At most PASSWORD_QUEUE_MAX estimates wait; beyond,
 * 503 `servicio_no_disponible` at once, like the hashing queue.
 */
@Injectable()
export class PasswordStrength implements OnModuleDestroy {
  private pool: Piscina<StrengthTask, StrengthResult> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly metrics?: AppMetrics,
  ) {}

  /** Estimates waiting for the worker (the one it runs not counted). */
  get queueDepth(): number {
    return this.pool?.queueSize ?? 0;
  }

  estimate(password: string, userInputs: readonly string[]): Promise<StrengthResult> {
    this.pool ??= new Piscina<StrengthTask, StrengthResult>({ filename: WORKER, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
    if (this.pool.queueSize >= this.config.passwordQueueMax) {
      this.metrics?.requestsShed.inc({ reason: 'strength_queue_full' });
      return Promise.reject(
        new DomainError('servicio_no_disponible', 'Demasiadas operaciones con contraseñas en curso; intente de nuevo en unos segundos', undefined, {
          'retry-after': '2',
        }),
      );
    }
    return this.pool.run({ password, userInputs: [...userInputs] });
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
