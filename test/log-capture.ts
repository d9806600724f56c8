import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '../src/log';

/** A JSON logger whose records the test can read back, at `level` and above. */
export function capturingLogger(level = 'debug'): {
  logger: winston.Logger;
  records: Array<Record<string, unknown>>;
} {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      records.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = winston.createLogger({
    level,
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
  return { logger, records };
}

/**
 * The sidecar's own logger (its JSON format, with its redaction) writing into `lines`, one
 * string per record: what an operator's log would hold.
 */
export function sidecarLogCapture(level = 'debug'): { logger: winston.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level, stream }), lines };
}
