import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import axios, { type AxiosInstance } from 'axios';
import { RmAuthError } from '../errors/rm-auth';
import { RmClientClosedError } from '../errors/rm-client-closed';
import { RmHttpError } from '../errors/rm-http';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { RmRemoteError } from '../errors/rm-remote';
import { RmResponseTooLargeError } from '../errors/rm-response-too-large';
import { RmTimeoutError } from '../errors/rm-timeout';
import { RmUnavailableError } from '../errors/rm-unavailable';
import { silentLogger, type Logger } from '../log';
import {
  decodeBody,
  htmlSummary,
  looksLikeHtml,
  readRemoteException,
  type Format,
  type Tree,
} from './format';
import type { EncodedBody } from './mapping';

/**
 * HTTP to one service (the RM, the JobHistory server, a NameNode) with the robustness an
 * operator needs: several addresses with active-RM detection and failover, a wall-clock limit on
 * every attempt and on every call, a size limit on every answer, jittered exponential backoff for
 * idempotent calls only, typed errors, a debug log line per call with its latency, and close()
 * ending every call in flight at once.
 */

/**
 * Largest answer read, by default. Measured on the emulated RM (which answers as RM 3.4.3):
 * 10,000 running apps weigh 43 MiB in JSON and 67 MiB in XML (4.5 KB and 7 KB each, most of it
 * `resourceInfo`), 10,000 nodes 18 MiB and 28 MiB; 128 MiB leaves room for longer names, tags
 * and diagnostics. docs/deploy.md, "Limits on what the RM sends".
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024;
/** Text a sink reads between two turns of the event loop: half a MiB, a few ms of parsing. */
export const SINK_TURN_BYTES = 512 * 1024;
/** Wall-clock budget of one call by default: attempts, pauses between them and HA detection. */
export const DEFAULT_CALL_BUDGET_MS = 30_000;

export interface TransportOptions {
  /** Base addresses, e.g. `['http://rm1:8088', 'http://rm2:8088']`. */
  urls: readonly string[];
  format?: Format;
  /** Simple authentication: sent as the `user.name` query parameter. */
  user?: string;
  /** Per attempt, on the wall clock: connect, send and read the whole answer. */
  timeoutMs?: number;
  /**
   * Per call, on the wall clock: every attempt, the pauses between them and HA detection. A call
   * still running then ends with RmTimeoutError, whatever the server is doing.
   */
  callBudgetMs?: number;
  /**
   * Largest answer read, in bytes after decompression; past it the read stops at once and the
   * call fails with RmResponseTooLargeError. Error answers count too.
   */
  maxResponseBytes?: number;
  /** The configuration keys behind the limits, named in errors (`rm.timeoutMs`, …, by default). */
  settingNames?: Partial<Record<'timeoutMs' | 'callBudgetMs' | 'maxResponseBytes', string>>;
  /** Attempts for an idempotent call (1 = no retry). */
  maxAttempts?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Source of jitter in [0, 1); inject a seeded one for deterministic tests. */
  random?: () => number;
  /** How to wait between attempts; inject a fake one for fast tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Monotonic clock in ms, for latency. */
  now?: () => number;
  /** PEM file of the CA that signed the RM's certificate (HTTPS). */
  caFile?: string;
  /**
   * Find the active RM through `GET /ws/v1/cluster/info` before the first call when several
   * addresses are given. Off for services without HA state (JobHistory, WebHDFS).
   */
  haDetection?: boolean;
  logger?: Logger;
  component?: string;
  /** What the server is called in error messages: 'RM' unless told ('JobHistory server', 'NameNode'). */
  service?: string;
  /**
   * Called after every attempt with its outcome, for metrics: `status` for an HTTP answer,
   * `error` ('timeout' or the network error code) otherwise.
   */
  onCall?: (call: {
    method: string;
    path: string;
    status?: number;
    error?: string;
    latencyMs: number;
  }) => void;
  /** Headers sent with every request (the sidecar's `X-Sidecar-Instance`, with HA). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Called right before each attempt of a write (any method but GET); throws to stop the write
   * before it is sent (a sidecar that is no longer the leader).
   */
  writeGuard?: () => void;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface HttpRequest {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  /** Parameters sent once per value (`labels=a&labels=b`). */
  repeatedQuery?: Record<string, readonly string[] | undefined>;
  body?: EncodedBody;
  /** Defaults to true for GET, false otherwise. */
  idempotent?: boolean;
  /** Accept a different format for this call (WebHDFS answers JSON only). */
  format?: Format;
  /** Set on the JSON retry of a read whose XML error had no body. */
  xmlErrorRetry?: boolean;
  /**
   * Reads a 2xx answer's text as it arrives, one sink per attempt (given the answer's
   * Content-Type; undefined: the text is kept as usual). The answer's `text` is then what the
   * sink's `end` returns, and `sunk` the sink that read it.
   */
  sink?: (contentType: string | undefined) => TextSink | undefined;
}

/** Takes an answer's text as it arrives (HttpRequest.sink). */
export interface TextSink {
  write(text: string): void;
  /** The answer's text as the caller is to see it ('' when the sink took it all). */
  end(): string;
}

export interface HttpResponse {
  status: number;
  text: string;
  contentType: string | undefined;
  location: string | undefined;
  url: string;
  /** The sink that read this answer's text (HttpRequest.sink). */
  sunk?: TextSink;
}

/** The path a standby RM answers itself, with its haState (INDEX.md section 7). */
export const CLUSTER_INFO_PATH = '/ws/v1/cluster/info';

type Outcome =
  | { kind: 'response'; res: HttpResponse }
  | { kind: 'network'; code: string; message: string; url: string }
  /** `call`: the call's budget ran out (not only this attempt's time). */
  | { kind: 'timeout'; url: string; call: boolean }
  | { kind: 'too-large'; url: string; receivedBytes: number; declaredBytes?: number }
  /** The answer began (status and headers) and its body was cut short. */
  | { kind: 'cut'; url: string; status: number; receivedBytes: number; code: string }
  /** close() was called; `sent`: the request had gone out. */
  | { kind: 'closed'; url: string; sent: boolean };

/** Whether a failed attempt may be made again: a read (or a write marked so), with attempts left. */
interface Retry {
  idempotent: boolean;
  canRetry: boolean;
}

/** A limit on one call's wall-clock time, also fired by close(). */
interface CallScope {
  signal: AbortSignal;
  dispose(): void;
}

const SETTING_NAMES = {
  timeoutMs: 'rm.timeoutMs',
  callBudgetMs: 'rm.callBudgetMs',
  maxResponseBytes: 'rm.maxResponseBytes',
};

/** The Content-Length a server announced, when it is a plain number. */
function declaredLength(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_BAD_REQUEST' && code !== 'ERR_BAD_RESPONSE') return code;
    const inner = (e as { errors?: unknown[] }).errors;
    e = Array.isArray(inner) && inner.length > 0 ? inner[0] : (e as { cause?: unknown }).cause;
  }
  return 'UNKNOWN';
}

export function buildQuery(
  query: HttpRequest['query'],
  repeated: HttpRequest['repeatedQuery'],
  user?: string,
): string {
  const parts: string[] = [];
  const push = (k: string, v: string): void => {
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  };
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (v.length > 0) push(k, v.join(','));
    } else push(k, String(v));
  }
  for (const [k, vs] of Object.entries(repeated ?? {})) for (const v of vs ?? []) push(k, v);
  if (user !== undefined) push('user.name', user);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class HttpTransport {
  readonly format: Format;
  private readonly urls: readonly string[];
  private readonly opts: Required<
    Pick<
      TransportOptions,
      | 'timeoutMs'
      | 'callBudgetMs'
      | 'maxResponseBytes'
      | 'maxAttempts'
      | 'backoffBaseMs'
      | 'backoffMaxMs'
      | 'haDetection'
    >
  >;
  private readonly settings: typeof SETTING_NAMES;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly user: string | undefined;
  private detection: Promise<string> | null = null;
  readonly log: Logger;
  private readonly service: string;
  private readonly onCall: TransportOptions['onCall'];
  private readonly headers: Readonly<Record<string, string>>;
  private readonly writeGuard: (() => void) | undefined;
  private readonly http: AxiosInstance;
  /** Fired by close(): every call in flight ends, and no new one starts. */
  private readonly closing = new AbortController();
  private activeIndex = 0;
  private activeKnown: boolean;

  constructor(options: TransportOptions) {
    if (options.urls.length === 0) throw new RangeError('at least one address is needed');
    this.urls = options.urls.map((u) => u.replace(/\/+$/, ''));
    this.format = options.format ?? 'json';
    this.opts = {
      timeoutMs: options.timeoutMs ?? 10_000,
      callBudgetMs: options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxAttempts: options.maxAttempts ?? 3,
      backoffBaseMs: options.backoffBaseMs ?? 200,
      backoffMaxMs: options.backoffMaxMs ?? 5_000,
      haDetection: options.haDetection ?? true,
    };
    this.settings = { ...SETTING_NAMES, ...options.settingNames };
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? (() => performance.now());
    this.user = options.user;
    this.onCall = options.onCall;
    this.headers = options.headers ?? {};
    this.writeGuard = options.writeGuard;
    this.log = (options.logger ?? silentLogger()).child({ component: options.component ?? 'rm-client' });
    this.service = options.service ?? 'RM';
    this.activeKnown = this.urls.length === 1 || !this.opts.haDetection;
    const httpsAgent = options.caFile ? new https.Agent({ ca: fs.readFileSync(options.caFile) }) : undefined;
    this.http = axios.create({ httpsAgent });
    // One listener per call in flight: as many as the sidecar runs at once, not a leak.
    setMaxListeners(0, this.closing.signal);
  }

  /** The address calls currently go to. */
  get activeUrl(): string {
    return this.urls[this.activeIndex]!;
  }

  /** Whether close() was called. */
  get closed(): boolean {
    return this.closing.signal.aborted;
  }

  /**
   * End every call in flight now (RmClientClosedError), whatever the server is doing, and refuse
   * new ones. For shutdown: nothing waits on a server that has stopped answering.
   */
  close(): void {
    if (this.closed) return;
    this.closing.abort();
    this.log.debug('client closed');
  }

  /**
   * Full-jitter exponential backoff: a uniform delay in [0, min(max, base·2^attempt)).
   * Spreads the retries of many clients after an RM restart.
   */
  backoffDelay(attempt: number): number {
    const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** attempt);
    return Math.floor(this.random() * cap);
  }

  /** One call's wall-clock budget, linked to close(). */
  private callScope(): CallScope {
    const scope = new AbortController();
    const end = (): void => scope.abort();
    const timer = setTimeout(end, this.opts.callBudgetMs);
    this.closing.signal.addEventListener('abort', end, { once: true });
    if (this.closed) end();
    return {
      signal: scope.signal,
      dispose: () => {
        clearTimeout(timer);
        this.closing.signal.removeEventListener('abort', end);
      },
    };
  }

  /**
   * One attempt: the request, then the answer read in full, within the attempt's time
   * (`timeoutMs`) and the call's (`call`), and never past `maxResponseBytes`. Axios' own
   * `timeout` is not used: it is an idle timer, which a body dripping a byte a second never
   * lets fire. Whatever goes wrong comes back as an Outcome, never thrown.
   */
  private async once(base: string, req: HttpRequest, attempt: number, call: AbortSignal): Promise<Outcome> {
    const url = `${base}${req.path}`;
    if (this.closed) return { kind: 'closed', url, sent: false };
    const full = url + buildQuery(req.query, req.repeatedQuery, this.user);
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    const timer = setTimeout(stop, this.opts.timeoutMs);
    call.addEventListener('abort', stop, { once: true });
    if (call.aborted) stop();
    const started = this.now();
    const format = req.format ?? this.format;
    const limit = this.opts.maxResponseBytes;
    let status: number | undefined;
    let received = 0;
    const report = (fields: { status?: number; error?: string }, message: string, extra = {}): void => {
      const latencyMs = Math.round(this.now() - started);
      this.onCall?.({ method: req.method, path: req.path, ...fields, latencyMs });
      this.log.debug(message, {
        method: req.method,
        rm: base,
        path: req.path,
        ...fields,
        ...extra,
        latencyMs,
        attempt,
      });
    };
    try {
      const res = await this.http.request<Readable>({
        url: full,
        method: req.method,
        headers: {
          ...this.headers,
          Accept: format === 'xml' ? 'application/xml' : 'application/json',
          ...(req.body ? { 'Content-Type': req.body.contentType } : {}),
        },
        data: req.body?.data,
        // The body is read here, counted as it arrives, so a huge one is never held whole.
        responseType: 'stream',
        validateStatus: () => true,
        maxRedirects: 0,
        signal: controller.signal,
      });
      status = res.status;
      const header = (name: string): string | undefined => {
        const v: unknown = res.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      // Compressed or not, a body announced longer than the limit is not read at all.
      const declared = declaredLength(res.headers['content-length']);
      const tooLarge = (): Outcome => {
        res.data.destroy();
        stop();
        report({ error: 'too-large' }, 'rm answer too large', { status, receivedBytes: received, declared });
        return { kind: 'too-large', url, receivedBytes: received, declaredBytes: declared };
      };
      if (declared !== undefined && declared > limit) return tooLarge();
      // Decoded as it arrives: a large answer is never also held as one joined buffer, a native
      // allocation of its whole size that the allocator may keep resident after it is freed.
      const decoder = new StringDecoder('utf8');
      let text = '';
      const sink = status >= 200 && status < 300 ? req.sink?.(header('content-type')) : undefined;
      // Counted after decompression: a small gzip body cannot inflate past the limit either.
      let sinceTurn = 0;
      for await (const chunk of res.data as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > limit) return tooLarge();
        if (!sink) {
          text += decoder.write(chunk);
          continue;
        }
        sink.write(decoder.write(chunk));
        // The chunks an answer's socket has buffered come one after another without a turn of
        // the event loop (up to 2 MiB at a time): a sink reading items lets it turn after each
        // SINK_TURN_BYTES, so that a request to the sidecar waits no longer than that reading.
        sinceTurn += chunk.length;
        if (sinceTurn >= SINK_TURN_BYTES) {
          sinceTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      if (sink) {
        sink.write(decoder.end());
        text = sink.end();
      } else text += decoder.end();
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      report({ status }, 'rm call');
      return {
        kind: 'response',
        res: {
          status,
          text,
          contentType: header('content-type'),
          location: header('location'),
          url,
          ...(sink ? { sunk: sink } : {}),
        },
      };
    } catch (err) {
      if (this.closed) {
        report({ error: 'closed' }, 'rm call aborted: client closed');
        return { kind: 'closed', url, sent: true };
      }
      if (controller.signal.aborted) {
        report({ error: 'timeout' }, 'rm call timed out', { callBudget: call.aborted });
        return { kind: 'timeout', url, call: call.aborted };
      }
      const code = errorCode(err);
      if (status !== undefined) {
        report({ error: 'truncated' }, 'rm answer cut short', { status, code, receivedBytes: received });
        return { kind: 'cut', url, status, receivedBytes: received, code };
      }
      report({ error: code }, 'rm call failed', { code });
      return { kind: 'network', code, message: (err as Error).message, url };
    } finally {
      clearTimeout(timer);
      call.removeEventListener('abort', stop);
    }
  }

  /** The error for a call ended by close() or by its budget. */
  private stopped(req: HttpRequest, url: string, sent: boolean): Error {
    if (this.closed)
      return new RmClientClosedError({ url, method: req.method, inFlight: sent, service: this.service });
    return this.timeoutError(req, url, true);
  }

  private timeoutError(req: HttpRequest, url: string, wholeCall: boolean): RmTimeoutError {
    return new RmTimeoutError({
      url,
      method: req.method,
      timeoutMs: wholeCall ? this.opts.callBudgetMs : this.opts.timeoutMs,
      setting: wholeCall ? this.settings.callBudgetMs : this.settings.timeoutMs,
      service: this.service,
    });
  }

  /** `work`, unless the call's budget runs out or the client closes first. */
  private async within<T>(work: Promise<T>, call: AbortSignal, req: HttpRequest): Promise<T> {
    if (!call.aborted) {
      let end!: () => void;
      const ended = new Promise<undefined>((resolve) => {
        end = () => resolve(undefined);
        call.addEventListener('abort', end, { once: true });
      });
      try {
        const done = await Promise.race([work.then((value) => ({ value })), ended]);
        if (done) return done.value;
      } finally {
        call.removeEventListener('abort', end);
      }
    }
    throw this.stopped(req, `${this.activeUrl}${req.path}`, false);
  }

  /**
   * Ask every address for its haState on the one path a standby answers itself, and use the
   * first ACTIVE one (INDEX.md section 7). Logs which address became active.
   */
  async detectActive(): Promise<string> {
    const reasons: string[] = [];
    // Addresses that answered: when all did and none is ACTIVE, the RMs are up but none leads.
    let answered = 0;
    for (let i = 0; i < this.urls.length; i++) {
      const base = this.urls[i]!;
      const req: HttpRequest = { method: 'GET', path: CLUSTER_INFO_PATH, format: 'json' };
      const out = await this.once(base, req, 0, this.closing.signal);
      if (out.kind === 'closed') throw this.stopped(req, out.url, out.sent);
      if (out.kind !== 'response') {
        const why =
          out.kind === 'network'
            ? out.code
            : out.kind === 'timeout'
              ? 'timeout'
              : out.kind === 'too-large'
                ? 'answer too large'
                : 'answer cut short';
        reasons.push(`${base}: ${why}`);
        continue;
      }
      answered++;
      if (out.res.status !== 200) {
        reasons.push(`${base}: HTTP ${out.res.status}`);
        continue;
      }
      let haState = '';
      try {
        const tree = decodeBody(out.res.text, 'json', out.res.contentType, out.res.url) as Record<
          string,
          Tree
        >;
        const info = tree.clusterInfo as Record<string, Tree> | undefined;
        haState = String(info?.haState ?? '');
      } catch {
        reasons.push(`${base}: unreadable cluster info`);
        continue;
      }
      if (haState === 'ACTIVE') {
        const previous = this.activeKnown ? this.activeUrl : undefined;
        this.activeIndex = i;
        this.activeKnown = true;
        this.log.info('active RM selected', { rm: base, previous, others: reasons });
        return base;
      }
      reasons.push(`${base}: ${haState || 'no haState'}`);
    }
    throw new RmUnavailableError(`no active RM among ${this.urls.join(', ')} (${reasons.join('; ')})`, {
      addresses: this.urls,
      reason: reasons.join('; '),
      noActiveRm: answered === this.urls.length,
    });
  }

  private switchToNext(from: string, reason: string): void {
    if (this.urls.length < 2) return;
    // Calls in flight together meet the same failure: move on once, not once each (an even
    // number of moves would land back on the failed address).
    if (this.activeUrl !== from) return;
    this.activeIndex = (this.activeIndex + 1) % this.urls.length;
    // With HA detection the next call confirms which address is ACTIVE before it is used.
    if (this.opts.haDetection) this.activeKnown = false;
    this.log.warn('RM failover', { from, to: this.activeUrl, reason });
  }

  /** One detection at a time: concurrent callers share it. */
  private ensureActive(): Promise<string> {
    if (!this.detection) {
      this.detection = this.detectActive().finally(() => {
        this.detection = null;
      });
    }
    return this.detection;
  }

  /**
   * Send a request; answer 2xx responses, throw a typed error for anything else. The whole call
   * (attempts, pauses, HA detection) ends within `callBudgetMs`, or at once on close().
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const scope = this.callScope();
    try {
      return await this.sendWithin(req, scope.signal);
    } finally {
      scope.dispose();
    }
  }

  private async sendWithin(req: HttpRequest, call: AbortSignal): Promise<HttpResponse> {
    const idempotent = req.idempotent ?? req.method === 'GET';
    let failovers = 0;
    for (let attempt = 0; ; attempt++) {
      if (!this.activeKnown) await this.within(this.ensureActive(), call, req);
      const base = this.activeUrl;
      if (req.method !== 'GET') this.writeGuard?.();
      const out = await this.once(base, req, attempt, call);
      const retry: Retry = { idempotent, canRetry: attempt + 1 < this.opts.maxAttempts };
      if (out.kind === 'response') {
        const verdict = await this.answerOf(out.res, req, call, retry);
        if (verdict === 'standby') {
          // A standby redirects every path but /cluster/info. It did not act on the request, so
          // even a write may be re-sent, to the address we find active (not the Location).
          this.log.warn('RM answered as standby', { rm: base, path: req.path, location: out.res.location });
          if (++failovers > this.urls.length) {
            throw new RmUnavailableError(`RMs keep redirecting; no active RM among ${this.urls.join(', ')}`, {
              addresses: this.urls,
              reason: 'redirect loop',
              noActiveRm: true,
            });
          }
          this.activeKnown = false;
          await this.within(this.ensureActive(), call, req);
          attempt--;
          continue;
        }
        if (verdict !== 'retry') return verdict;
      } else {
        const switchFor = this.failureOf(out, req, retry);
        if (switchFor !== undefined) this.switchToNext(base, switchFor);
      }
      await this.within(this.sleep(this.backoffDelay(attempt)), call, req);
    }
  }

  /**
   * What an answer means: the answer itself (2xx), `standby` (a standby's redirect, with HA
   * detection on), `retry` (a 5xx to a request that may be sent again); else the typed error.
   */
  private async answerOf(
    res: HttpResponse,
    req: HttpRequest,
    call: AbortSignal,
    { idempotent, canRetry }: Retry,
  ): Promise<HttpResponse | 'standby' | 'retry'> {
    if (res.status >= 200 && res.status < 300) return res;
    if (res.status === 307 && this.opts.haDetection) return 'standby';
    const text = looksLikeHtml(res.text, res.contentType)
      ? htmlSummary(res.text)
      : res.text.trim().slice(0, 500);
    if (res.status === 401) {
      throw new RmAuthError({ url: res.url, user: this.user, text, service: this.service });
    }
    const remote = readRemoteException(res.text);
    if (remote)
      throw new RmRemoteError({ status: res.status, ...remote, url: res.url, service: this.service });
    if (res.status === 500 && res.text.trim() === '' && (req.format ?? this.format) === 'xml') {
      // A real RM (3.4) cannot write a RemoteException in XML: it answers 500 with no body
      // where JSON gets e.g. 404 NotFoundException. A read is asked again in JSON to learn
      // which; a write is not sent twice, and says what it was.
      if (req.method === 'GET' && !req.xmlErrorRetry) {
        try {
          await this.sendWithin({ ...req, format: 'json', xmlErrorRetry: true }, call);
        } catch (err) {
          if (err instanceof RmRemoteError) throw err;
        }
      }
      throw new RmHttpError({
        status: 500,
        text: 'no body: the RM could not write its error in XML (ask in JSON, rm.format: json, to see it)',
        url: res.url,
        service: this.service,
      });
    }
    if (res.status >= 500 && idempotent && canRetry) return 'retry';
    throw new RmHttpError({ status: res.status, text, url: res.url, service: this.service });
  }

  /**
   * What a failed attempt allows: to try again, on the next RM (the reason to switch for) or the
   * same one (undefined); else the typed error, naming whether a write may have been applied.
   */
  private failureOf(
    out: Exclude<Outcome, { kind: 'response' }>,
    req: HttpRequest,
    { idempotent, canRetry }: Retry,
  ): string | undefined {
    if (out.kind === 'closed') throw this.stopped(req, out.url, out.sent);

    if (out.kind === 'too-large') {
      // The same request would get the same answer: not retried.
      throw new RmResponseTooLargeError({
        url: out.url,
        method: req.method,
        limitBytes: this.opts.maxResponseBytes,
        receivedBytes: out.receivedBytes,
        declaredBytes: out.declaredBytes,
        service: this.service,
        setting: this.settings.maxResponseBytes,
      });
    }

    if (out.kind === 'timeout') {
      if (out.call) throw this.timeoutError(req, out.url, true);
      // A write that timed out may have been applied: never resend it.
      if (idempotent && canRetry) return 'timeout';
      throw this.timeoutError(req, out.url, false);
    }

    if (out.kind === 'cut') {
      // The server answered, so it is up: ask it again (a read), without failing over.
      if (idempotent && canRetry) return undefined;
      const what = `${req.method} ${out.url}: the ${this.service} answered ${out.status}, then the connection closed after ${out.receivedBytes} bytes of the body (${out.code})`;
      if (!idempotent) {
        throw new RmUnavailableError(`${what}; the write may have been applied`, {
          addresses: this.urls,
          reason: out.code,
          outcomeUnknown: true,
        });
      }
      throw new RmMalformedResponseError(what, { url: out.url, reason: 'truncated' });
    }

    // Connection refused proves the request never reached a server, so a write may go again.
    const neverArrived = out.code === 'ECONNREFUSED' || out.code === 'ENOTFOUND' || out.code === 'EAI_AGAIN';
    if ((idempotent || neverArrived) && canRetry) return out.code;
    if (!idempotent && !neverArrived) {
      // The request may have reached the server before the connection failed (a reset, a
      // closed socket): its effect is unknown, and the caller must look before sending again.
      throw new RmUnavailableError(
        `${req.method} ${out.url}: the connection failed after the request was sent (${out.code} ${out.message}); the write may have been applied`,
        { addresses: this.urls, reason: out.code, outcomeUnknown: true },
      );
    }
    throw new RmUnavailableError(`cannot reach ${out.url}: ${out.code} ${out.message}`, {
      addresses: this.urls,
      reason: out.code,
    });
  }

  /** Send, then decode the body in the expected format. */
  async sendForTree(req: HttpRequest): Promise<{ tree: Tree; res: HttpResponse }> {
    const res = await this.send(req);
    return { tree: decodeBody(res.text, req.format ?? this.format, res.contentType, res.url), res };
  }
}

/** Re-raise a mapping failure with the URL it came from. */
export function withUrl(err: unknown, url: string): unknown {
  if (err instanceof RmMalformedResponseError && err.context.url === undefined) {
    return new RmMalformedResponseError(err.message, { url, fieldPath: err.fieldPath }, { cause: err });
  }
  return err;
}
