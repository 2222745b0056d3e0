import { describe, expect, it } from '@jest/globals';
import { DiagLogLevel } from '@opentelemetry/api';
import { DiagnosticsLog, diagnosticsLevel } from './diagnostics-log.js';

describe('DiagnosticsLog', () => {
  const lines = (logLevel?: string) => {
    const written: Array<Record<string, unknown>> = [];
    const log = new DiagnosticsLog(logLevel, (line) => written.push(JSON.parse(line) as Record<string, unknown>));
    return { log, written };
  };

  it("writes the SDK's diagnostics as the service's log lines, at pino's levels", () => {
    const { log, written } = lines('info');
    log.warn('Unrecognized OTEL_TRACES_EXPORTER value: bogus.');
    log.error('export failed', new Error('connect ECONNREFUSED 10.0.0.9:4318'));
    expect(written).toEqual([
      { level: 40, time: expect.any(Number), context: 'OpenTelemetry', msg: 'Unrecognized OTEL_TRACES_EXPORTER value: bogus.' },
      { level: 50, time: expect.any(Number), context: 'OpenTelemetry', msg: 'export failed connect ECONNREFUSED 10.0.0.9:4318' },
    ]);
  });

  it('reads back an error the SDK flattened to JSON: its message and code, not its stack', () => {
    const { log, written } = lines();
    const flattened = JSON.stringify({
      stack: 'Error: connect ECONNREFUSED\n    at x (y.js:1:1)',
      message: 'connect ECONNREFUSED 127.0.0.1:1',
      code: 'ECONNREFUSED',
    });
    log.error(flattened);
    expect(written[0]?.msg).toBe('connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)');
  });

  it('masks the password of any URL in a message', () => {
    const { log, written } = lines();
    log.error('OTLP export to http://collector:S3cretPw@otel.internal:4318/v1/traces failed', { url: 'https://u:Other5ecret@h/x?password=p4ss' });
    const msg = String(written[0]?.msg);
    expect(msg).toContain('http://collector:***@otel.internal:4318/v1/traces');
    expect(msg).not.toMatch(/S3cretPw|Other5ecret|p4ss/);
  });

  it("follows LOG_LEVEL's threshold too", () => {
    const { log, written } = lines('error');
    log.warn('dropped');
    log.error('kept');
    expect(written.map((l) => l.msg)).toEqual(['kept']);
    const silent = lines('silent');
    silent.log.error('dropped');
    expect(silent.written).toEqual([]);
  });

  it('takes its own threshold from OTEL_LOG_LEVEL, as the SDK spells it; warn otherwise', () => {
    expect(diagnosticsLevel(undefined)).toBe(DiagLogLevel.WARN);
    expect(diagnosticsLevel('')).toBe(DiagLogLevel.WARN);
    expect(diagnosticsLevel('loud')).toBe(DiagLogLevel.WARN);
    expect(diagnosticsLevel(' DEBUG ')).toBe(DiagLogLevel.DEBUG);
    expect(diagnosticsLevel('none')).toBe(DiagLogLevel.NONE);
    expect(diagnosticsLevel('all')).toBe(DiagLogLevel.ALL);
  });
});
