import { describe, expect, it } from '@jest/globals';
import { startupLog } from './startup-log.js';

describe('startupLog', () => {
  it("writes pino-shaped lines at or above LOG_LEVEL's threshold, and nothing under silent", () => {
    const lines: string[] = [];
    const write = (line: string) => lines.push(line);
    startupLog('warn', write)('listening on http://localhost:3000');
    startupLog('warn', write)('shutdown not finished', 50);
    startupLog('silent', write)('fatal-looking', 60);
    startupLog('info', write)('database: postgres at postgres://svc:***@db/medios', 30, { port: 3000 });
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      { level: 50, time: expect.any(Number), context: 'Startup', msg: 'shutdown not finished' },
      { level: 30, time: expect.any(Number), context: 'Startup', msg: 'database: postgres at postgres://svc:***@db/medios', port: 3000 },
    ]);
  });
});
