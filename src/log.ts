import winston from 'winston';

export type Logger = winston.Logger;

/** Keys whose values never reach a log line, wherever they appear in a record. */
const SECRET_KEYS = /^(authorization|token|tokens|password|secret|cookie|x-hadoop-delegation-token|bearer)$/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEYS.test(k) ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (SECRET_KEYS.test(key)) (info as Record<string, unknown>)[key] = '[redacted]';
    else if (typeof info[key] === 'object') (info as Record<string, unknown>)[key] = redact(info[key]);
  }
  return info;
});

export interface LoggerOptions {
  level?: string;
  /** JSON lines (the default, for production) or a short human format for the terminal. */
  format?: 'json' | 'pretty';
  /** Write to stderr so a command's stdout stays clean for its output (e.g. `probe --json`). */
  stderr?: boolean;
  silent?: boolean;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const formats =
    options.format === 'pretty'
      ? winston.format.combine(
          redactFormat(),
          winston.format.timestamp(),
          winston.format.printf((info) => {
            const { level, message, timestamp, component, ...rest } = info as Record<string, unknown>;
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${String(timestamp)} ${String(level)}${component ? ` [${String(component)}]` : ''} ${String(message)}${extra}`;
          }),
        )
      : winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json());
  return winston.createLogger({
    level: options.level ?? 'info',
    format: formats,
    silent: options.silent ?? false,
    transports: [
      new winston.transports.Console({
        stderrLevels:
          options.stderr === false ? [] : ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'],
      }),
    ],
  });
}

/** A logger that drops everything: the default where a caller does not inject one. */
export function silentLogger(): Logger {
  return createLogger({ silent: true });
}
