import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { SidecarError } from '../errors/base';
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
  AnswerSink,
  JsonListReader,
  JsonTreeReader,
  treeReader,
  XmlListReader,
  XmlTreeReader,
  type AnswerHead,
} from './answer';
import { AttemptTimers } from './attempt-timers';
import { htmlSummary, looksLikeHtml, parseJson, readRemoteException, type Format, type Tree } from './format';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_RESPONSE_LIMITS,
  MAX_ITEM_CHARS,
  TooLargeItem,
  TooManyItems,
  type Endpoint,
  type EndpointLimit,
  type ItemLimit,
} from './limits';
import type { EncodedBody, ListShape } from './mapping';

/**
 * HTTP to one service (the RM, the JobHistory server, a NameNode) with the robustness an
 * operator needs: several addresses with active-RM detection and failover, a wall-clock limit on
 * the first byte of every answer, on every attempt and on every call, a size limit on every
 * answer per endpoint (bytes, and items for a list), every answer checked as it arrives (UTF-8,
 * Content-Type, nesting, XML well-formedness: answer.ts), jittered exponential backoff for
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
/**
 * The size from which a list answer in JSON is read item by item as it arrives (json-list.ts'
 * JsonListSink). Below it one JSON.parse of the whole text is faster (a poll cycle's read of 500
 * followed apps is about 0.6 MB) and its tree too small to matter; above it neither the text nor
 * the whole tree is held (5,000 nodes are about 10 MB of text, every live app of a big cluster
 * tens of MB), and the event loop turns between the answer's chunks. XML lists are read item by
 * item at any size.
 */
export const ITEMWISE_MIN_CHARS = 1024 * 1024;

export interface TransportOptions {
  /** Base addresses, e.g. `['http://rm1:8088', 'http://rm2:8088']`. */
  urls: readonly string[];
  format?: Format;
  /** Simple authentication: sent as the `user.name` query parameter. */
  user?: string;
  /**
   * Per attempt, on the wall clock: connect, send and read the whole answer; past it, the attempt
   * goes on only while its answer keeps arriving (KEEPS_ARRIVING_BYTES_PER_SECOND).
   */
  timeoutMs?: number;
  /** Per attempt, from its start to the first byte of the answer (DEFAULT_FIRST_BYTE_TIMEOUT_MS). */
  firstByteTimeoutMs?: number;
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
  /**
   * Limits of each endpoint's answers (DEFAULT_RESPONSE_LIMITS for those not given), for the
   * requests that name their endpoint; each is lowered to `maxResponseBytes` if above it.
   */
  responseLimits?: Partial<Record<Endpoint, EndpointLimit>>;
  /** The configuration keys behind the limits, named in errors (`rm.timeoutMs`, …, by default). */
  settingNames?: Partial<
    Record<
      'timeoutMs' | 'firstByteTimeoutMs' | 'callBudgetMs' | 'maxResponseBytes' | 'responseLimits',
      string
    >
  >;
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
  /** The endpoint whose limits the answer is held to (rm.responseLimits); none: maxResponseBytes. */
  endpoint?: Endpoint;
  /**
   * Reads a 2xx answer's text as it arrives, one sink per attempt (given the answer's
   * Content-Type and URL; undefined: the text is kept as usual). The answer's `text` is then
   * what the sink's `end` returns, and `sunk` the sink that read it. A sink refuses an answer by
   * throwing (RmMalformedResponseError, TooManyItems, TooLargeItem): the read stops there, and
   * the call fails with that error, not retried.
   */
  sink?: (answer: AnswerHead) => TextSink | undefined;
}

/** Takes an answer's text as it arrives (HttpRequest.sink). */
export interface TextSink {
  write(text: string): void;
  /** The answer's text as the caller is to see it ('' when the sink took it all). */
  end(): string;
  /**
   * Set when the sink has refused the answer already, from its headers (another Content-Type):
   * its text is then decoded as it can be, for the error's excerpt, not refused as not UTF-8.
   */
  readonly refusing?: boolean;
}

/** An endpoint's limits as applied, with the settings that set them. */
export interface AppliedLimit {
  maxBytes: number;
  bytesSetting: string;
  maxItems?: number;
  itemsSetting?: string;
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
  /**
   * The limit that ran out: the first byte's, the attempt's (its answer no longer arriving fast
   * enough), or the call's budget.
   */
  | {
      kind: 'timeout';
      url: string;
      limit: 'first-byte' | 'attempt' | 'call';
      firstByte: boolean;
      receivedBytes: number;
    }
  | {
      kind: 'too-large';
      url: string;
      receivedBytes: number;
      declaredBytes?: number;
      /** The list's items passed their limit. */
      items?: boolean;
      /** One item passed MAX_ITEM_CHARS. */
      oneItem?: boolean;
    }
  /** The answer was refused as it arrived (malformed: `error` says what). */
  | { kind: 'refused'; url: string; error: Error }
  /** The answer began (status and headers) and its body was cut short. */
  | { kind: 'cut'; url: string; status: number; receivedBytes: number; code: string }
  /** close() was called; `sent`: the request had gone out. */
  | { kind: 'closed'; url: string; sent: boolean };

/** Reports the end of an attempt (HttpTransport's `reporter`). */
type Report = (fields: { status?: number; error?: string }, message: string, extra?: object) => void;

/** What the reading of one attempt's answer needs. */
interface AttemptContext {
  url: string;
  req: HttpRequest;
  limit: AppliedLimit;
  timers: AttemptTimers;
  report: Report;
}

/** The ways the read of an answer's body ends early, each as the attempt's Outcome. */
interface AnswerEnds {
  /** Past the endpoint's limit of bytes, or of items (`items`), or one item past MAX_ITEM_CHARS. */
  tooLarge(more?: { items?: boolean; oneItem?: boolean }): Outcome;
  /** Refused by the request's sink. */
  refused(err: unknown): Outcome;
  /** Not UTF-8, from byte `from` of the body. */
  notUtf8(from: number): Outcome;
}

/** A header of an answer, when it is one string. */
function headerOf(res: AxiosResponse<Readable>, name: string): string | undefined {
  const v: unknown = res.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * An answer's body decoded as it arrives, counted against `maxBytes` after decompression (a
 * small gzip body cannot inflate past the limit either), and given to the sink when there is
 * one: its text (the sink's `end` with a sink), or the Outcome that stopped the read.
 */
async function readBody(
  data: Readable,
  read: {
    decoder: InstanceType<typeof TextDecoder>;
    sink: TextSink | undefined;
    maxBytes: number;
    timers: AttemptTimers;
    end: AnswerEnds;
  },
): Promise<string | Outcome> {
  const { decoder, sink, maxBytes, timers, end } = read;
  let text = '';
  let sinceTurn = 0;
  for await (const chunk of data as AsyncIterable<Buffer>) {
    timers.received += chunk.length;
    if (timers.received > maxBytes) return end.tooLarge();
    let decoded: string;
    try {
      decoded = decoder.decode(chunk, { stream: true });
    } catch {
      return end.notUtf8(timers.received - chunk.length);
    }
    if (!sink) {
      text += decoded;
      continue;
    }
    try {
      sink.write(decoded);
    } catch (err) {
      return end.refused(err);
    }
    // The chunks an answer's socket has buffered come one after another without a turn of the
    // event loop (up to 2 MiB at a time): a sink reading items lets it turn after each
    // SINK_TURN_BYTES, so that a request to the sidecar waits no longer than that reading.
    sinceTurn += chunk.length;
    if (sinceTurn >= SINK_TURN_BYTES) {
      sinceTurn = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (timers.signal.aborted) throw new Error('aborted');
    }
  }
  let tail: string;
  try {
    tail = decoder.decode();
  } catch {
    return end.notUtf8(timers.received);
  }
  if (!sink) return text + tail;
  try {
    sink.write(tail);
    return sink.end();
  } catch (err) {
    return end.refused(err);
  }
}

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
  firstByteTimeoutMs: 'rm.firstByteTimeoutMs',
  callBudgetMs: 'rm.callBudgetMs',
  maxResponseBytes: 'rm.maxResponseBytes',
  responseLimits: 'rm.responseLimits',
};

/** A parse error of Node's HTTP client (`HPE_HEADER_OVERFLOW`, …): the server's answer is not HTTP. */
const NOT_HTTP = /^HPE_/;

/** Node's HTTP client, with a hook on the socket each request gets (the first byte's timer). */
function hookedTransport(onSocket: (req: http.ClientRequest, socket: NodeJS.Socket) => void) {
  return {
    request(options: http.RequestOptions, callback: (res: http.IncomingMessage) => void): http.ClientRequest {
      const req = (options.protocol === 'https:' ? https : http).request(options, callback);
      req.once('socket', (socket) => onSocket(req, socket));
      return req;
    },
  };
}

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
      | 'firstByteTimeoutMs'
      | 'callBudgetMs'
      | 'maxResponseBytes'
      | 'maxAttempts'
      | 'backoffBaseMs'
      | 'backoffMaxMs'
      | 'haDetection'
    >
  >;
  private readonly settings: typeof SETTING_NAMES;
  private readonly limits: Readonly<Record<Endpoint, EndpointLimit>>;
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
  /** The address last found or made active, to count changes of the active RM. */
  private lastActive: string | undefined;
  private activeChangeCount = 0;

  constructor(options: TransportOptions) {
    if (options.urls.length === 0) throw new RangeError('at least one address is needed');
    this.urls = options.urls.map((u) => u.replace(/\/+$/, ''));
    this.format = options.format ?? 'json';
    this.opts = {
      timeoutMs: options.timeoutMs ?? 10_000,
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      callBudgetMs: options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxAttempts: options.maxAttempts ?? 3,
      backoffBaseMs: options.backoffBaseMs ?? 200,
      backoffMaxMs: options.backoffMaxMs ?? 5_000,
      haDetection: options.haDetection ?? true,
    };
    this.settings = { ...SETTING_NAMES, ...options.settingNames };
    this.limits = { ...DEFAULT_RESPONSE_LIMITS, ...options.responseLimits };
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
  /**
   * How many times the active RM changed (a failover to another address): readers of what an
   * RM's clock anchors (apps started since ...) start again when it moves.
   */
  get activeChanges(): number {
    return this.activeChangeCount;
  }

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

  /** The limits an answer of `endpoint` is held to (maxResponseBytes for none, or if lower). */
  limitOf(endpoint: Endpoint | undefined): AppliedLimit {
    const overall: AppliedLimit = {
      maxBytes: this.opts.maxResponseBytes,
      bytesSetting: this.settings.maxResponseBytes,
    };
    if (endpoint === undefined) return overall;
    const own = this.limits[endpoint];
    const setting = `${this.settings.responseLimits}.${endpoint}`;
    const bytes =
      own.maxBytes <= overall.maxBytes
        ? { maxBytes: own.maxBytes, bytesSetting: `${setting}.maxBytes` }
        : overall;
    return own.maxItems === undefined
      ? bytes
      : { ...bytes, maxItems: own.maxItems, itemsSetting: `${setting}.maxItems` };
  }

  /** The limit of items of a list endpoint, for its readers (undefined: none). */
  itemLimit(endpoint: Endpoint | undefined): ItemLimit | undefined {
    const { maxItems } = this.limitOf(endpoint);
    return maxItems === undefined ? undefined : { maxItems };
  }

  /**
   * One attempt: the request, then the answer read as it arrives, within the attempt's limits:
   * its first byte within `firstByteTimeoutMs`, the whole answer within `timeoutMs` (or later,
   * while it keeps arriving at KEEPS_ARRIVING_BYTES_PER_SECOND or more), the call's budget
   * (`call`), and never past its endpoint's limits (AttemptTimers). A 2xx answer must be UTF-8
   * and is given to the request's sink as it is decoded, which may refuse it. Axios' own
   * `timeout` is not used: it is an idle timer, which a body dripping a byte a second never lets
   * fire. Whatever goes wrong comes back as an Outcome, never thrown.
   */
  private async once(base: string, req: HttpRequest, attempt: number, call: AbortSignal): Promise<Outcome> {
    const url = `${base}${req.path}`;
    if (this.closed) return { kind: 'closed', url, sent: false };
    const full = url + buildQuery(req.query, req.repeatedQuery, this.user);
    const timers = new AttemptTimers(this.opts, call);
    const report = this.reporter(base, req, attempt);
    const limit = this.limitOf(req.endpoint);
    let status: number | undefined;
    try {
      const res = await this.request(full, req, timers);
      timers.sawFirstByte();
      status = res.status;
      return await this.readAnswer(res, { url, req, limit, timers, report });
    } catch (err) {
      return this.failedAttempt(err, { url, status, timers, report });
    } finally {
      timers.dispose();
    }
  }

  /** Reports an attempt's end: to `onCall` (metrics) and as a debug line with its latency. */
  private reporter(base: string, req: HttpRequest, attempt: number): Report {
    const started = this.now();
    return (fields, message, extra = {}) => {
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
  }

  /** The request of one attempt, its answer's body left to be read as a stream. */
  private request(full: string, req: HttpRequest, timers: AttemptTimers): Promise<AxiosResponse<Readable>> {
    const format = req.format ?? this.format;
    return this.http.request<Readable>({
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
      signal: timers.signal,
      // The first byte of the answer is its first byte on the socket, headers included.
      transport: hookedTransport((request, socket) => {
        socket.once('data', timers.sawFirstByte);
        request.once('close', () => socket.removeListener('data', timers.sawFirstByte));
      }),
    });
  }

  /**
   * An answer whose status and headers have arrived: its body read within the limits, refused
   * as it arrives when it must be, else the response.
   */
  private async readAnswer(res: AxiosResponse<Readable>, at: AttemptContext): Promise<Outcome> {
    const { url, req, limit } = at;
    const status = res.status;
    const header = (name: string): string | undefined => headerOf(res, name);
    // Compressed or not, a body announced longer than the limit is not read at all.
    const declared = declaredLength(res.headers['content-length']);
    const end = this.answerEnds(res, declared, at);
    if (declared !== undefined && declared > limit.maxBytes) return end.tooLarge();
    const ok = status >= 200 && status < 300;
    const sink = ok ? req.sink?.({ contentType: header('content-type'), url }) : undefined;
    // A 2xx answer is read as UTF-8 or refused (fatal); an error page, or an answer refused for
    // its Content-Type, is shown as it can be. Decoded as it arrives: a large answer is never
    // also held as one joined buffer, a native allocation of its whole size that the allocator
    // may keep resident after it is freed.
    const decoder = new TextDecoder('utf-8', { fatal: ok && sink?.refusing !== true });
    const body = await readBody(res.data, {
      decoder,
      sink,
      maxBytes: limit.maxBytes,
      timers: at.timers,
      end,
    });
    if (typeof body !== 'string') return body;
    const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
    at.report({ status }, 'rm call');
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
  }

  /** The ways the read of an answer's body stops early; each stops the attempt and reports. */
  private answerEnds(
    res: AxiosResponse<Readable>,
    declared: number | undefined,
    at: AttemptContext,
  ): AnswerEnds {
    const { url, timers, report } = at;
    const status = res.status;
    const tooLarge = (more: { items?: boolean; oneItem?: boolean } = {}): Outcome => {
      res.data.destroy();
      timers.stop();
      const received = timers.received;
      report({ error: 'too-large' }, 'rm answer too large', { status, receivedBytes: received, declared });
      return { kind: 'too-large', url, receivedBytes: received, declaredBytes: declared, ...more };
    };
    // Refused as it arrived (the sink's verdict, or not UTF-8): the read stops there.
    const refused = (err: unknown): Outcome => {
      if (err instanceof TooManyItems) return tooLarge({ items: true });
      if (err instanceof TooLargeItem) return tooLarge({ oneItem: true });
      res.data.destroy();
      timers.stop();
      // Anything else a sink throws is a fault of its own: passed on as it is.
      const error = err instanceof RmMalformedResponseError ? err.at(url) : (err as Error);
      const code = error instanceof SidecarError ? error.code : 'UNKNOWN';
      report({ error: 'malformed' }, 'rm answer refused', { status, code, reason: error.message });
      return { kind: 'refused', url, error };
    };
    const notUtf8 = (from: number): Outcome =>
      refused(
        new RmMalformedResponseError(
          `the ${this.service} answered text that is not UTF-8 (in bytes ${from} to ${timers.received} of the body)`,
          { contentType: headerOf(res, 'content-type'), reason: 'encoding' },
        ),
      );
    return { tooLarge, refused, notUtf8 };
  }

  /** What an attempt that threw comes to: closed, timed out, cut short, or a network failure. */
  private failedAttempt(
    err: unknown,
    at: { url: string; status: number | undefined; timers: AttemptTimers; report: Report },
  ): Outcome {
    const { url, status, timers, report } = at;
    if (this.closed) {
      report({ error: 'closed' }, 'rm call aborted: client closed');
      return { kind: 'closed', url, sent: true };
    }
    const { firstByte, received } = timers;
    if (timers.signal.aborted) {
      const which = timers.limitHit();
      report({ error: 'timeout' }, 'rm call timed out', { limit: which, firstByte, receivedBytes: received });
      return { kind: 'timeout', url, limit: which, firstByte, receivedBytes: received };
    }
    const code = errorCode(err);
    if (status !== undefined) {
      report({ error: 'truncated' }, 'rm answer cut short', { status, code, receivedBytes: received });
      return { kind: 'cut', url, status, receivedBytes: received, code };
    }
    report({ error: code }, 'rm call failed', { code });
    return { kind: 'network', code, message: (err as Error).message, url };
  }

  /** The error for a call ended by close() or by its budget. */
  private stopped(req: HttpRequest, url: string, sent: boolean): Error {
    if (this.closed)
      return new RmClientClosedError({ url, method: req.method, inFlight: sent, service: this.service });
    return this.timeoutError(req, url, 'call');
  }

  private timeoutError(
    req: HttpRequest,
    url: string,
    limit: 'first-byte' | 'attempt' | 'call',
    progress: { firstByte?: boolean; receivedBytes?: number } = {},
  ): RmTimeoutError {
    const [timeoutMs, setting] =
      limit === 'call'
        ? [this.opts.callBudgetMs, this.settings.callBudgetMs]
        : limit === 'first-byte'
          ? [this.opts.firstByteTimeoutMs, this.settings.firstByteTimeoutMs]
          : [this.opts.timeoutMs, this.settings.timeoutMs];
    return new RmTimeoutError({
      url,
      method: req.method,
      timeoutMs,
      setting,
      service: this.service,
      ...progress,
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
      const req: HttpRequest = {
        method: 'GET',
        path: CLUSTER_INFO_PATH,
        format: 'json',
        endpoint: 'info',
        sink: (answer) => new AnswerSink('json', answer, new JsonTreeReader()),
      };
      const out = await this.once(base, req, 0, this.closing.signal);
      if (out.kind === 'closed') throw this.stopped(req, out.url, out.sent);
      if (out.kind !== 'response') {
        const why =
          out.kind === 'network'
            ? out.code
            : out.kind === 'timeout'
              ? out.firstByte
                ? 'timeout'
                : 'timeout, no first byte'
              : out.kind === 'too-large'
                ? 'answer too large'
                : out.kind === 'refused'
                  ? 'unreadable cluster info'
                  : 'answer cut short';
        reasons.push(`${base}: ${why}`);
        if (out.kind === 'refused') answered++;
        continue;
      }
      answered++;
      if (out.res.status !== 200) {
        reasons.push(`${base}: HTTP ${out.res.status}`);
        continue;
      }
      const tree = (out.res.sunk as AnswerSink<JsonTreeReader>).reader.tree as Record<string, Tree>;
      const info = tree.clusterInfo;
      const haState =
        info !== null && typeof info === 'object' && !Array.isArray(info) && typeof info.haState === 'string'
          ? info.haState
          : '';
      if (haState === 'ACTIVE') {
        const previous = this.activeKnown ? this.activeUrl : undefined;
        this.activeIndex = i;
        this.activeKnown = true;
        this.sawActive(base);
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
    // Without detection the next address is used as it is; with it, the detection counts.
    else this.sawActive(this.activeUrl, from);
    this.log.warn('RM failover', { from, to: this.activeUrl, reason });
  }

  private sawActive(url: string, previous = this.lastActive): void {
    if (previous !== undefined && previous !== url) this.activeChangeCount++;
    this.lastActive = url;
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
    retry: Retry,
  ): string | undefined {
    const { idempotent, canRetry } = retry;
    if (out.kind === 'closed') throw this.stopped(req, out.url, out.sent);

    // Refused as it arrived: the same request would get the same answer, not retried.
    if (out.kind === 'refused') throw out.error;

    // The same request would get the same answer: not retried.
    if (out.kind === 'too-large') throw this.tooLargeError(out, req);

    if (out.kind === 'timeout') {
      const progress = { firstByte: out.firstByte, receivedBytes: out.receivedBytes };
      if (out.limit === 'call') throw this.timeoutError(req, out.url, 'call', progress);
      // A server that said nothing, or answered too slowly, is not asked again: that would
      // take as long again, and the poll asks anew within seconds. With several RMs, a read
      // goes to the next one. A write that timed out may have been applied: never resent.
      if (idempotent && canRetry && this.urls.length > 1) return 'timeout';
      throw this.timeoutError(req, out.url, out.limit, progress);
    }

    if (out.kind === 'cut') return this.cutFailure(out, req, retry);

    return this.networkFailure(out, req, retry);
  }

  /** The error of an answer past its endpoint's limits: of bytes, of items, or of one item. */
  private tooLargeError(
    out: Extract<Outcome, { kind: 'too-large' }>,
    req: HttpRequest,
  ): RmResponseTooLargeError {
    const limit = this.limitOf(req.endpoint);
    const common = {
      url: out.url,
      method: req.method,
      receivedBytes: out.receivedBytes,
      endpoint: req.endpoint,
      service: this.service,
    };
    if (out.items) {
      return new RmResponseTooLargeError({
        ...common,
        limitBytes: limit.maxBytes,
        limitItems: limit.maxItems,
        setting: limit.itemsSetting,
      });
    }
    if (out.oneItem) {
      return new RmResponseTooLargeError({
        ...common,
        limitBytes: MAX_ITEM_CHARS,
        oneItem: true,
        setting: 'fixed: one item of a list',
      });
    }
    return new RmResponseTooLargeError({
      ...common,
      limitBytes: limit.maxBytes,
      declaredBytes: out.declaredBytes,
      setting: limit.bytesSetting,
    });
  }

  /** An answer cut short: asked again when it may be (a read), else the typed error. */
  private cutFailure(
    out: Extract<Outcome, { kind: 'cut' }>,
    req: HttpRequest,
    { idempotent, canRetry }: Retry,
  ): undefined {
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

  /** A network failure: tried again on the next RM (the reason returned) when it may be. */
  private networkFailure(
    out: Extract<Outcome, { kind: 'network' }>,
    req: HttpRequest,
    { idempotent, canRetry }: Retry,
  ): string | undefined {
    // Node's HTTP parser refused the answer (headers past 16 KiB, a broken status line): the
    // server answers, but not in HTTP, and would answer so again. A write may have been applied.
    if (NOT_HTTP.test(out.code) && idempotent) {
      throw new RmMalformedResponseError(
        `the ${this.service}'s answer to ${req.method} ${out.url} is not valid HTTP (${out.code}: ${out.message})`,
        { url: out.url, reason: 'http' },
      );
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

  /** Send, the answer decoded in the expected format as it arrives (answer.ts). */
  async sendForTree(req: HttpRequest): Promise<{ tree: Tree; res: HttpResponse }> {
    const format = req.format ?? this.format;
    const res = await this.send({
      ...req,
      sink: (answer) => new AnswerSink(format, answer, treeReader(format)),
    });
    const sunk = res.sunk as AnswerSink<JsonTreeReader | XmlTreeReader> | undefined;
    // A 2xx answer has always been read by its sink.
    return { tree: sunk!.reader.tree, res };
  }

  /**
   * A GET of a list endpoint, read as it arrives and held to the endpoint's limits (bytes and
   * items). XML is read item by item (xml-reader.ts); JSON from ITEMWISE_MIN_CHARS in the plain
   * shape item by item (json-list.ts), and below it, or in another shape, kept and parsed whole.
   * A JSON list found broken after its first items (cut short, malformed) is asked for again and
   * read whole, so that its error is JSON.parse's.
   */
  async readList<T>(req: Omit<HttpRequest, 'method' | 'sink'> & { endpoint: Endpoint }, shape: ListShape<T>) {
    const format = req.format ?? this.format;
    const limit = this.itemLimit(req.endpoint);
    if (format === 'xml') {
      const res = await this.send({
        method: 'GET',
        ...req,
        sink: (answer) => new AnswerSink('xml', answer, new XmlListReader(shape.xml(limit))),
      });
      return (res.sunk as AnswerSink<XmlListReader<T>>).reader.xml.items;
    }
    const res = await this.send({
      method: 'GET',
      ...req,
      sink: (answer) =>
        new AnswerSink('json', answer, new JsonListReader(shape.json(ITEMWISE_MIN_CHARS, limit))),
    });
    const sunk = (res.sunk as AnswerSink<JsonListReader<T>>).reader.sink;
    if (sunk.outcome === 'items') {
      if (sunk.error) throw withUrl(sunk.error.err, res.url);
      return sunk.items;
    }
    let tree: Tree;
    let url = res.url;
    if (sunk.outcome === 'fault') {
      this.log.warn('a list answer broke off its plain shape; it is read again whole', {
        url: res.url,
        itemsRead: sunk.items.length,
      });
      ({
        tree,
        res: { url },
      } = await this.sendForTree({ method: 'GET', ...req }));
    } else tree = parseJson(res.text, res.url, { depthChecked: true });
    const count = shape.count(tree);
    if (limit !== undefined && count > limit.maxItems) {
      const applied = this.limitOf(req.endpoint);
      throw new RmResponseTooLargeError({
        url,
        method: 'GET',
        limitBytes: applied.maxBytes,
        limitItems: applied.maxItems,
        receivedBytes: res.text.length,
        endpoint: req.endpoint,
        service: this.service,
        setting: applied.itemsSetting,
      });
    }
    try {
      return shape.map(tree);
    } catch (err) {
      throw withUrl(err, url);
    }
  }
}

/** Re-raise a mapping failure with the URL it came from. */
export function withUrl(err: unknown, url: string): unknown {
  return err instanceof RmMalformedResponseError ? err.at(url) : err;
}
