import type { Writable } from 'node:stream';
import winston from 'winston';

export type Logger = winston.Logger;

/** Keys whose values never reach a log line, wherever they appear in a record. */
const SECRET_KEYS =
  /^(authorization|proxy-authorization|token|tokens|password|passwd|secret|secrets|cookie|set-cookie|x-hadoop-delegation-token|bearer|api[-_]?key)$/i;

/**
 * Secrets written inside text, each with what stays visible:
 *  - the user information of a URL (`http://user:pw@rm:8088` -> `http://[redacted]@rm:8088`);
 *  - an Authorization header's value, and a bearer token anywhere (`Bearer [redacted]`);
 *  - a query parameter that carries one (`?delegation=...`, `&token=...`); `user.name` stays.
 */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string | ((...groups: string[]) => string)]> = [
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@'"<>]+@/gi, '$1[redacted]@'],
  [
    /\b(authorization\s*[:=]\s*)(?:(basic|bearer|negotiate|digest)\s+)?([^\s"',;]+)/gi,
    // A placeholder such as `Bearer <token>` in a help text is not a credential.
    (whole: string, header: string, scheme: string | undefined, value: string) =>
      value.startsWith('<') ? whole : `${header}${scheme ? `${scheme} ` : ''}[redacted]`,
  ],
  // A bearer token in running text: 16 characters or more (auth.tokens' minimum), so prose
  // ("a bearer token is required") stays as written.
  [/\b(bearer)(\s+)(?!\[redacted\])[A-Za-z0-9\-._~+/]{16,}=*/gi, '$1$2[redacted]'],
  [
    /([?&;](?:access_token|token|delegation|password|passwd|secret|signature|sig|api[-_]?key)=)[^&#\s'"<>]*/gi,
    '$1[redacted]',
  ],
];

const SECRET_MARKERS = /:\/\/|bearer|authorization|[?&;][a-z_-]+=/i;

/** `text` with every credential it holds replaced by `[redacted]` (see SECRET_PATTERNS). */
export function redactText(text: string): string {
  // Most text holds none of the markers: skip the regular expressions for it.
  if (!mayHoldSecret(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) {
    out =
      typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }
  return out;
}

/**
 * Whether `text` holds a marker of a credential (`://`, `bearer`, `authorization`, a query
 * parameter): false means redactText returns it unchanged. JSON.stringify escapes none of
 * these characters, so JSON text without a marker holds no string redactText would change.
 */
export function mayHoldSecret(text: string): boolean {
  return SECRET_MARKERS.test(text);
}

/** A URL as it may be shown: its user information (user and password) replaced. */
export function redactUrl(url: string): string {
  return redactText(url);
}

const MAX_REDACT_DEPTH = 16;

/**
 * A copy of `value` with secret keys' values and credentials inside strings redacted. Past
 * MAX_REDACT_DEPTH a nested value is replaced rather than walked (so a cycle ends too).
 */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_REDACT_DEPTH) return '[nested too deep to show]';
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  if (value instanceof Error) return redactText(value.stack ?? value.message);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEYS.test(k) ? '[redacted]' : redactDeep(v, depth + 1);
  }
  return out;
}

const redactFormat = winston.format((info) => {
  const record = info as Record<string | symbol, unknown>;
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    record[key] = SECRET_KEYS.test(key) ? '[redacted]' : redactDeep(record[key]);
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
  /** Write the lines here instead of the console (tests read them back). */
  stream?: Writable;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  // Winston formats a record before its transports drop it for its level: drop it first, so a
  // debug line on a hot path costs no redaction or serialisation at level info.
  const enabled = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const formats =
    options.format === 'pretty'
      ? winston.format.combine(
          enabled(),
          redactFormat(),
          winston.format.timestamp(),
          winston.format.printf((info) => {
            const { level, message, timestamp, component, ...rest } = info as Record<string, unknown>;
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
            return `${String(timestamp)} ${String(level)}${component ? ` [${String(component)}]` : ''} ${String(message)}${extra}`;
          }),
        )
      : winston.format.combine(enabled(), redactFormat(), winston.format.timestamp(), winston.format.json());
  const logger = winston.createLogger({
    level: options.level ?? 'info',
    format: formats,
    silent: options.silent ?? false,
    transports: [
      options.stream
        ? new winston.transports.Stream({ stream: options.stream })
        : new winston.transports.Console({
            stderrLevels:
              options.stderr === false ? [] : ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'],
          }),
    ],
  });
  // The level methods (logger.debug(...), a child's too) return before winston builds the
  // record and writes it through its stream: a line below the level costs one comparison.
  // Calls of logger.log(level, ...) are still dropped by the `enabled` format above.
  const methods = logger as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const level of Object.keys(logger.levels)) {
    const write = methods[level];
    if (typeof write !== 'function') continue;
    methods[level] = function (this: Logger | undefined, ...args: unknown[]) {
      const self = this ?? logger;
      return self.isLevelEnabled(level) ? write.apply(self, args) : self;
    };
  }
  return logger;
}

/** A logger that drops everything: the default where a caller does not inject one. */
export function silentLogger(): Logger {
  return createLogger({ silent: true });
}
