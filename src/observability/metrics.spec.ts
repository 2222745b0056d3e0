import { describe, expect, it } from '@jest/globals';
import { AppMetrics } from './metrics.js';

describe('AppMetrics', () => {
  it('exposes the series the failure alerts watch at 0 from the start, so their first increment is an increase', async () => {
    const text = await new AppMetrics().registry.metrics();
    expect(text).toContain('audit_write_failures_total{store="audit_events"} 0');
    expect(text).toContain('audit_write_failures_total{store="security_events"} 0');
    for (const job of ['partition-manager', 'retention', 'integrity-check', 'audit-seal']) {
      expect(text).toContain(`maintenance_job_runs_total{job="${job}",result="failed"} 0`);
    }
  });
});
