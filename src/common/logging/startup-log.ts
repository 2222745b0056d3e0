/** pino's numeric levels, by LOG_LEVEL's names */
const LOG_LEVELS: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

export type StartupLog = (msg: string, level?: number, fields?: Record<string, unknown>) => void;

/**
 * The server's own lines before the application's logger exists and after it closed (the embedded
 * database, listening, shutdown): pino's line shape (level 30 info, 40 warn, 50 error) on stdout,
 * under the same LOG_LEVEL threshold as the logger's.
 */
export function startupLog(logLevel: string, write: (line: string) => void = (line) => process.stdout.write(line)): StartupLog {
  const threshold = LOG_LEVELS[logLevel] ?? LOG_LEVELS.info!;
  return (msg, level = 30, fields = {}) => {
    if (level >= threshold) write(`${JSON.stringify({ level, time: Date.now(), context: 'Startup', msg, ...fields })}\n`);
  };
}
