import type { NextFunction, Request, Response } from 'express';
import { mulberry32, type Rng } from '../sim/rng';

/**
 * Test controls: the faults a real RM (or the network in front of it) produces, off by default,
 * and a count of the write calls that arrived. Set by CLI flags or under `/_emulator/` (a path
 * Hadoop does not have); the control paths themselves are never faulted.
 */
export interface FaultSettings {
  /**
   * Act as a standby RM whose active peer is at this address: `/ws/v1/cluster/info` answers
   * haState STANDBY, `/isActive` 405, every other path but the RM filter's exceptions 307 to the
   * peer with the RM's text body (INDEX.md section 7). null: active.
   */
  standbyOf: string | null;
  /** Added to every answer, real milliseconds. */
  latencyMs: number;
  /** Share of requests (0..1) answered with one of `failStatuses` instead of being handled. */
  failShare: number;
  failStatuses: number[];
  /**
   * Body of an injected failure: `text` (a proxy's or Jetty's plain page, which a client may
   * retry) or `remote-exception` (the RM's own 503 RemoteException, which it reports as is).
   */
  failBody: 'text' | 'remote-exception';
  /** Share of answers cut to half their length. */
  truncateShare: number;
  /** Share of answers with their body corrupted (bytes overwritten). */
  corruptShare: number;
  /** Destroy the connection of every request without answering (ECONNRESET at the client). */
  dropConnections: boolean;
  /**
   * Share of write requests (0..1) that the RM handles in full, state change and all, whose
   * answer is then lost: the connection is closed instead of answered (ECONNRESET at the
   * client). The case a client cannot tell from a write that never arrived, except by reading.
   */
  loseAnswerShare: number;
}

export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze({
  standbyOf: null,
  latencyMs: 0,
  failShare: 0,
  failStatuses: [500, 503],
  failBody: 'text',
  truncateShare: 0,
  corruptShare: 0,
  dropConnections: false,
  loseAnswerShare: 0,
});

export interface WriteRecord {
  method: string;
  /** The path with ids replaced by placeholders: `PUT /ws/v1/cluster/apps/{appid}/state`. */
  endpoint: string;
  path: string;
  body: string;
  /** The answer's status, once sent (undefined for a dropped connection). */
  status?: number;
  /** True when a control answered instead of the RM (standby redirect, injected failure). */
  injected: boolean;
  /**
   * Set when the RM handled the write but its answer was lost (`loseAnswerShare`): the status
   * it would have answered. `status` stays undefined, as for any closed connection.
   */
  lostStatus?: number;
  /** The sidecar instance that wrote (its `X-Sidecar-Instance` header), when it names itself. */
  instance?: string;
  /** When the write arrived, on the wall clock (epoch ms). */
  receivedMs: number;
}

export const CONTROL_PREFIX = '/_emulator';

/** Paths a standby RM answers itself (RMWebAppFilter, INDEX.md section 7). */
const STANDBY_OWN = [
  '/ws/v1/cluster/info',
  '/cluster/cluster',
  '/conf',
  '/stacks',
  '/logLevel',
  '/logs',
  '/isActive',
  '/jmx',
  '/prom',
];

export function isStandbyOwnPath(path: string): boolean {
  return STANDBY_OWN.includes(path.replace(/\/+$/, '')) || path.startsWith('/proxy/');
}

/** `PUT /ws/v1/cluster/apps/application_1_0001/state` → `/ws/v1/cluster/apps/{appid}/state`. */
export function endpointOf(path: string): string {
  return path
    .replace(/application_\d+_\d+/g, '{appid}')
    .replace(/appattempt_\d+_\d+_\d+/g, '{appattemptid}')
    .replace(/container_(e\d+_)?\d+_\d+_\d+_\d+/g, '{containerid}')
    .replace(/attempt_\d+_\d+_[mr]_\d+_\d+/g, '{attemptid}')
    .replace(/task_\d+_\d+_[mr]_\d+/g, '{taskid}')
    .replace(/job_\d+_\d+/g, '{jobid}')
    .replace(/\/nodes\/[^/]+/g, '/nodes/{nodeid}');
}

function checkShare(v: unknown, name: string): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1))
    throw new RangeError(`${name} must be a number in [0, 1]`);
  return v;
}

/** Each setting's check: the value to keep, or a RangeError saying what it must be. */
const SETTING_CHECKS: { readonly [K in keyof FaultSettings]: (v: unknown) => FaultSettings[K] } = {
  standbyOf: (v) => {
    if (v !== null && (typeof v !== 'string' || !/^https?:\/\//.test(v)))
      throw new RangeError('standbyOf must be an http(s) address or null');
    return v === null ? null : v.replace(/\/+$/, '');
  },
  latencyMs: (v) => {
    if (typeof v !== 'number' || !(v >= 0)) throw new RangeError('latencyMs must be a non-negative number');
    return v;
  },
  failShare: (v) => checkShare(v, 'failShare'),
  failStatuses: (v) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((s) => Number.isInteger(s) && s >= 500 && s < 600))
      throw new RangeError('failStatuses must be a non-empty list of 5xx statuses');
    return v as number[];
  },
  failBody: (v) => {
    if (v !== 'text' && v !== 'remote-exception')
      throw new RangeError('failBody must be text or remote-exception');
    return v;
  },
  truncateShare: (v) => checkShare(v, 'truncateShare'),
  corruptShare: (v) => checkShare(v, 'corruptShare'),
  dropConnections: (v) => {
    if (typeof v !== 'boolean') throw new RangeError('dropConnections must be true or false');
    return v;
  },
  loseAnswerShare: (v) => checkShare(v, 'loseAnswerShare'),
};

const isSetting = (key: string): key is keyof FaultSettings =>
  Object.prototype.hasOwnProperty.call(SETTING_CHECKS, key);

/** What an injected failure answers: a proxy's plain page, or the RM's own RemoteException. */
function sendFailure(res: Response, status: number, body: FaultSettings['failBody']): void {
  if (body === 'remote-exception') {
    res
      .status(status)
      .type('application/json')
      .send(
        JSON.stringify({
          RemoteException: {
            exception: 'YarnRuntimeException',
            message: 'injected failure',
            javaClassName: 'org.apache.hadoop.yarn.exceptions.YarnRuntimeException',
          },
        }),
      );
  } else {
    res
      .status(status)
      .type('text/plain')
      .send(status === 503 ? 'Service Unavailable' : 'Internal Server Error');
  }
}

/** Cuts every answer `res` sends to half (truncate), or overwrites a run in its middle. */
function damageAnswers(res: Response, truncate: boolean): void {
  const send = res.send.bind(res);
  const damage = (text: string): string => {
    if (truncate) return text.slice(0, Math.floor(text.length / 2));
    // Overwrite a run of characters in the middle: structure breaks, length stays.
    const mid = Math.floor(text.length / 2);
    return `${text.slice(0, mid)}\u0000#garbage#${text.slice(mid + 10)}`;
  };
  res.send = (body?: unknown) => {
    // Answers go out as strings or, to keep the RM's exact Content-Type, as buffers.
    if (Buffer.isBuffer(body) && body.length > 0)
      return send(Buffer.from(damage(body.toString('utf8')), 'utf8'));
    if (typeof body !== 'string' || body.length === 0) return send(body);
    return send(damage(body));
  };
}

export class Controls {
  private current: FaultSettings;
  private readonly rng: Rng;
  readonly writeLog: WriteRecord[] = [];
  /** Requests answered with an injected failure, reads and writes alike. */
  injectedFailures = 0;

  constructor(
    seed: number,
    initial: Partial<FaultSettings> = {},
    /** How latency waits; tests inject one that records instead of sleeping. */
    private readonly delay: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.rng = mulberry32(seed).fork('faults');
    this.current = { ...NO_FAULTS };
    this.set(initial);
  }

  get faults(): Readonly<FaultSettings> {
    return this.current;
  }

  /** Change some settings; every value is checked before any is applied. */
  set(partial: Partial<Record<keyof FaultSettings, unknown>>): Readonly<FaultSettings> {
    const next: FaultSettings = { ...this.current, failStatuses: [...this.current.failStatuses] };
    for (const [key, v] of Object.entries(partial)) {
      if (!isSetting(key)) throw new RangeError(`unknown fault setting ${key}`);
      (next as Record<keyof FaultSettings, unknown>)[key] = SETTING_CHECKS[key](v);
    }
    this.current = next;
    return this.current;
  }

  reset(): void {
    this.current = { ...NO_FAULTS };
  }

  /** Write calls that arrived, by `METHOD endpoint`. */
  writeCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const w of this.writeLog) {
      const k = `${w.method} ${w.endpoint}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  clearWrites(): void {
    this.writeLog.length = 0;
  }

  /** A write call as it arrives, its status filled in once answered; undefined for a read. */
  private recordWrite(req: Request, res: Response): WriteRecord | undefined {
    if (req.method === 'GET' || req.method === 'HEAD') return undefined;
    const record: WriteRecord = {
      method: req.method,
      endpoint: endpointOf(req.path),
      path: req.path,
      body: typeof req.body === 'string' ? req.body : '',
      injected: false,
      receivedMs: Date.now(),
    };
    const instance = req.get('x-sidecar-instance');
    if (instance !== undefined) record.instance = instance.slice(0, 128);
    this.writeLog.push(record);
    res.on('finish', () => {
      record.status = res.statusCode;
    });
    return record;
  }

  /** One request's draw against `failShare`: the status to fail it with, or undefined. */
  private drawFailure(f: FaultSettings): number | undefined {
    if (!(f.failShare > 0 && this.rng.next() < f.failShare)) return undefined;
    return f.failStatuses[Math.floor(this.rng.next() * f.failStatuses.length)]!;
  }

  /**
   * The fault middleware. `rm`: this app is an RM (standby mode applies); the JobHistory
   * server has no HA state and gets the other faults only.
   */
  middleware(rm: boolean) {
    return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      if (req.path.startsWith(CONTROL_PREFIX)) return next();
      const f = this.current;
      const record = this.recordWrite(req, res);
      if (f.dropConnections) {
        req.socket.destroy();
        return;
      }
      if (rm && f.standbyOf !== null && !isStandbyOwnPath(req.path)) {
        if (record) record.injected = true;
        res
          .status(307)
          .set('Location', `${f.standbyOf}${req.originalUrl}`)
          .type('text/plain')
          .send(`This is standby RM. The redirect url is: ${req.originalUrl}`);
        return;
      }
      if (f.latencyMs > 0) await this.delay(f.latencyMs);
      const failure = this.drawFailure(f);
      if (failure !== undefined) {
        if (record) record.injected = true;
        this.injectedFailures++;
        sendFailure(res, failure, f.failBody);
        return;
      }
      if (record && f.loseAnswerShare > 0 && this.rng.next() < f.loseAnswerShare) {
        // The write goes through to the RM; only its answer is replaced by a closed connection.
        // Handlers answer synchronously after changing the state, so by `end` it has changed.
        res.end = ((..._ignored: unknown[]) => {
          record.lostStatus = res.statusCode;
          req.socket.destroy();
          return res;
        }) as Response['end'];
        return next();
      }
      const truncate = f.truncateShare > 0 && this.rng.next() < f.truncateShare;
      const corrupt = !truncate && f.corruptShare > 0 && this.rng.next() < f.corruptShare;
      if (truncate || corrupt) damageAnswers(res, truncate);
      next();
    };
  }
}
