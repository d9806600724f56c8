import fs from 'node:fs';
import https from 'node:https';
import axios, { type AxiosInstance } from 'axios';
import { RmAuthError } from '../errors/rm-auth';
import { RmHttpError } from '../errors/rm-http';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import { RmRemoteError } from '../errors/rm-remote';
import { RmTimeoutError } from '../errors/rm-timeout';
import { RmUnavailableError } from '../errors/rm-unavailable';
import { silentLogger, type Logger } from '../log';
import { decodeBody, readRemoteException, type Format, type Tree } from './format';
import type { EncodedBody } from './mapping';

/**
 * HTTP to one service (the RM, the JobHistory server, a NameNode) with the robustness an
 * operator needs: several addresses with active-RM detection and failover, a timeout on every
 * call, jittered exponential backoff for idempotent calls only, typed errors, and a debug log
 * line per call with its latency.
 */
export interface TransportOptions {
  /** Base addresses, e.g. `['http://rm1:8088', 'http://rm2:8088']`. */
  urls: readonly string[];
  format?: Format;
  /** Simple authentication: sent as the `user.name` query parameter. */
  user?: string;
  /** Per attempt: connect, send and read the whole answer. */
  timeoutMs?: number;
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
}

export interface HttpResponse {
  status: number;
  text: string;
  contentType: string | undefined;
  location: string | undefined;
  url: string;
}

/** The path a standby RM answers itself, with its haState (INDEX.md section 7). */
export const CLUSTER_INFO_PATH = '/ws/v1/cluster/info';

type Outcome =
  | { kind: 'response'; res: HttpResponse }
  | { kind: 'network'; code: string; message: string; url: string }
  | { kind: 'timeout'; url: string };

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
    Pick<TransportOptions, 'timeoutMs' | 'maxAttempts' | 'backoffBaseMs' | 'backoffMaxMs' | 'haDetection'>
  >;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly user: string | undefined;
  private detection: Promise<string> | null = null;
  private readonly log: Logger;
  private readonly service: string;
  private readonly onCall: TransportOptions['onCall'];
  private readonly http: AxiosInstance;
  private activeIndex = 0;
  private activeKnown: boolean;

  constructor(options: TransportOptions) {
    if (options.urls.length === 0) throw new RangeError('at least one address is needed');
    this.urls = options.urls.map((u) => u.replace(/\/+$/, ''));
    this.format = options.format ?? 'json';
    this.opts = {
      timeoutMs: options.timeoutMs ?? 10_000,
      maxAttempts: options.maxAttempts ?? 3,
      backoffBaseMs: options.backoffBaseMs ?? 200,
      backoffMaxMs: options.backoffMaxMs ?? 5_000,
      haDetection: options.haDetection ?? true,
    };
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? (() => performance.now());
    this.user = options.user;
    this.onCall = options.onCall;
    this.log = (options.logger ?? silentLogger()).child({ component: options.component ?? 'rm-client' });
    this.service = options.service ?? 'RM';
    this.activeKnown = this.urls.length === 1 || !this.opts.haDetection;
    const httpsAgent = options.caFile ? new https.Agent({ ca: fs.readFileSync(options.caFile) }) : undefined;
    this.http = axios.create({ httpsAgent });
  }

  /** The address calls currently go to. */
  get activeUrl(): string {
    return this.urls[this.activeIndex]!;
  }

  /**
   * Full-jitter exponential backoff: a uniform delay in [0, min(max, base·2^attempt)).
   * Spreads the retries of many clients after an RM restart.
   */
  backoffDelay(attempt: number): number {
    const cap = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** attempt);
    return Math.floor(this.random() * cap);
  }

  private async once(base: string, req: HttpRequest, attempt: number): Promise<Outcome> {
    const url = `${base}${req.path}`;
    const full = url + buildQuery(req.query, req.repeatedQuery, this.user);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.opts.timeoutMs);
    const started = this.now();
    const format = req.format ?? this.format;
    try {
      const res = await this.http.request<string>({
        url: full,
        method: req.method,
        headers: {
          Accept: format === 'xml' ? 'application/xml' : 'application/json',
          ...(req.body ? { 'Content-Type': req.body.contentType } : {}),
        },
        data: req.body?.data,
        responseType: 'text',
        transformResponse: [(d: unknown) => d],
        validateStatus: () => true,
        maxRedirects: 0,
        signal: controller.signal,
      });
      const latencyMs = Math.round(this.now() - started);
      this.onCall?.({ method: req.method, path: req.path, status: res.status, latencyMs });
      this.log.debug('rm call', {
        method: req.method,
        rm: base,
        path: req.path,
        status: res.status,
        latencyMs,
        attempt,
      });
      const header = (name: string): string | undefined => {
        const v: unknown = res.headers[name];
        return typeof v === 'string' ? v : undefined;
      };
      return {
        kind: 'response',
        res: {
          status: res.status,
          text: typeof res.data === 'string' ? res.data : '',
          contentType: header('content-type'),
          location: header('location'),
          url,
        },
      };
    } catch (err) {
      const latencyMs = Math.round(this.now() - started);
      if (controller.signal.aborted) {
        this.onCall?.({ method: req.method, path: req.path, error: 'timeout', latencyMs });
        this.log.debug('rm call timed out', {
          method: req.method,
          rm: base,
          path: req.path,
          latencyMs,
          attempt,
        });
        return { kind: 'timeout', url };
      }
      const code = errorCode(err);
      this.onCall?.({ method: req.method, path: req.path, error: code, latencyMs });
      this.log.debug('rm call failed', {
        method: req.method,
        rm: base,
        path: req.path,
        code,
        latencyMs,
        attempt,
      });
      return { kind: 'network', code, message: (err as Error).message, url };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Ask every address for its haState on the one path a standby answers itself, and use the
   * first ACTIVE one (INDEX.md section 7). Logs which address became active.
   */
  async detectActive(): Promise<string> {
    const reasons: string[] = [];
    for (let i = 0; i < this.urls.length; i++) {
      const base = this.urls[i]!;
      const out = await this.once(base, { method: 'GET', path: CLUSTER_INFO_PATH, format: 'json' }, 0);
      if (out.kind !== 'response') {
        reasons.push(`${base}: ${out.kind === 'timeout' ? 'timeout' : out.code}`);
        continue;
      }
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

  /** Send a request; answer 2xx responses, throw a typed error for anything else. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const idempotent = req.idempotent ?? req.method === 'GET';
    let failovers = 0;
    for (let attempt = 0; ; attempt++) {
      if (!this.activeKnown) await this.ensureActive();
      const base = this.activeUrl;
      const out = await this.once(base, req, attempt);
      const canRetry = attempt + 1 < this.opts.maxAttempts;

      if (out.kind === 'response') {
        const { res } = out;
        if (res.status >= 200 && res.status < 300) return res;
        if (res.status === 307 && this.opts.haDetection) {
          // A standby redirects every path but /cluster/info. It did not act on the request, so
          // even a write may be re-sent, to the address we find active (not the Location).
          this.log.warn('RM answered as standby', { rm: base, path: req.path, location: res.location });
          if (++failovers > this.urls.length) {
            throw new RmUnavailableError(`RMs keep redirecting; no active RM among ${this.urls.join(', ')}`, {
              addresses: this.urls,
              reason: 'redirect loop',
            });
          }
          this.activeKnown = false;
          await this.ensureActive();
          attempt--;
          continue;
        }
        if (res.status === 401) {
          throw new RmAuthError({
            url: res.url,
            user: this.user,
            text: res.text.trim().slice(0, 500),
            service: this.service,
          });
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
              await this.send({ ...req, format: 'json', xmlErrorRetry: true });
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
        if (res.status >= 500 && idempotent && canRetry) {
          await this.sleep(this.backoffDelay(attempt));
          continue;
        }
        throw new RmHttpError({
          status: res.status,
          text: res.text.trim().slice(0, 500),
          url: res.url,
          service: this.service,
        });
      }

      if (out.kind === 'timeout') {
        // A write that timed out may have been applied: never resend it.
        if (idempotent && canRetry) {
          this.switchToNext(base, 'timeout');
          await this.sleep(this.backoffDelay(attempt));
          continue;
        }
        throw new RmTimeoutError({ url: out.url, method: req.method, timeoutMs: this.opts.timeoutMs });
      }

      // Connection refused proves the request never reached a server, so a write may go again.
      const neverArrived =
        out.code === 'ECONNREFUSED' || out.code === 'ENOTFOUND' || out.code === 'EAI_AGAIN';
      if ((idempotent || neverArrived) && canRetry) {
        this.switchToNext(base, out.code);
        await this.sleep(this.backoffDelay(attempt));
        continue;
      }
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
