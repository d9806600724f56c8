import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import zookeeper, { type Client, type Event as ZkEvent } from 'node-zookeeper-client';
import type { Logger } from '../log';

/**
 * Leader election among sidecars through ZooKeeper (the ensemble YARN's RMs already use), by
 * the standard recipe: each candidate creates an ephemeral sequential znode under
 * `<path>/election`; the lowest sequence leads; each other candidate watches only the node just
 * before its own (no herd when the leader goes). The leader's epoch, its fencing token, is its
 * node's sequence number + 1: a later leader always has a larger one.
 *
 * Connection states, as Curator's LeaderLatch treats them by default: a leader whose
 * connection is lost (DISCONNECTED) stops leading at once, since its session may expire without
 * it hearing; an expired session deposes it. A leader whose event loop stood still for most of
 * a session timeout (a stopped process, a long pause) counts as deposed too: its session may
 * have expired meanwhile, and another may lead. A deposed leader does not run again: the
 * process exits, and starts again as a follower (src/ha/role.ts). A follower whose session
 * expires joins again with a new node.
 */

/** What each candidate's node holds: who it is and where its API answers. */
export interface Candidate {
  id: string;
  url: string;
}

/** The leader as this instance knows it. */
export interface LeaderInfo extends Candidate {
  epoch: number;
}

export interface ElectionOptions {
  /** ZooKeeper's connection string: host:port[,host:port...][/chroot]. */
  connect: string;
  /** The sidecars' root znode; the candidates' nodes go under `<path>/election`. */
  path: string;
  sessionTimeoutMs: number;
  /** This instance: its id and advertised URL, written into its node. */
  self: Candidate;
  logger: Logger;
}

export interface ElectionEvents {
  /** This instance leads, with this epoch (its node's sequence number). */
  elected: [epoch: number];
  /** This instance led and does not any more: stop writing at once. */
  deposed: [reason: string];
  /** The leader's URL changed (null: none known). */
  leaderChanged: [url: string | null];
}

/** `n_<token>_0000000042` -> 42; the token finds our node again after a lost connection. */
const NODE_PREFIX = 'n_';

export function sequenceOf(node: string): number {
  const m = /_(\d{10})$/.exec(node);
  return m ? Number(m[1]) : Number.NaN;
}

/** A candidate's epoch: its sequence + 1 (a fencing token is positive; the first node is 0). */
export function epochOf(node: string): number {
  return sequenceOf(node) + 1;
}

/** An error of the ZooKeeper client: an Error, or one of its Exceptions (a code and a name). */
type ZkError = Error | zookeeper.Exception;

/**
 * One client call as a promise. A call in flight when the connection drops may never be
 * answered: it fails after CALL_TIMEOUT_MS, and the check runs again once connected.
 */
function call<T>(fn: (cb: (err: ZkError | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from ZooKeeper')), CALL_TIMEOUT_MS);
    timer.unref();
    fn((err, value) => {
      clearTimeout(timer);
      if (err) reject(err instanceof Error ? err : new Error(err.toString()));
      else resolve(value);
    });
  });
}

const CALL_TIMEOUT_MS = 3_000;

const isNoNode = (err: unknown): boolean =>
  (err as { getCode?: () => number }).getCode?.() === zookeeper.Exception.NO_NODE ||
  /NO_NODE/.test(String((err as Error).message));

/**
 * How long the event loop may stand still before a leader assumes its session expired: two
 * thirds of the session timeout (ZooKeeper's client pings every third of it).
 */
export function pauseLimitMs(sessionTimeoutMs: number): number {
  return Math.floor((sessionTimeoutMs * 2) / 3);
}

const TICK_MS = 200;

export class LeaderElection extends EventEmitter<ElectionEvents> {
  private readonly electionPath: string;
  private readonly token = randomBytes(6).toString('hex');
  private readonly log: Logger;
  private client: Client | null = null;
  private node: string | null = null;
  private leading = false;
  private deposedOnce = false;
  private closed = false;
  private known: LeaderInfo | null = null;
  private lastTickMs = Date.now();
  /** Since when this instance has no connection (null while connected). */
  private disconnectedSince: number | null = null;
  private ticker: NodeJS.Timeout | null = null;
  /** Serialises checks: a watch firing while one runs asks for one more. */
  private checking: Promise<void> | null = null;
  private recheck = false;

  constructor(private readonly options: ElectionOptions) {
    super();
    this.electionPath = `${options.path.replace(/\/+$/, '')}/election`;
    this.log = options.logger.child({ component: 'election' });
  }

  /** Connects and joins the election; returns at once (the events tell what follows). */
  start(): void {
    this.lastTickMs = Date.now();
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
    this.connect();
  }

  /** Whether this instance leads now (false as soon as its event loop stood still too long). */
  isLeader(): boolean {
    if (!this.leading) return false;
    if (Date.now() - this.lastTickMs > pauseLimitMs(this.options.sessionTimeoutMs)) {
      this.depose('the process stood still longer than the session allows');
      return false;
    }
    return true;
  }

  /** This instance's epoch while it leads. */
  epoch(): number | null {
    return this.leading && this.node ? epochOf(this.node) : null;
  }

  /** The leader as last read from ZooKeeper (this instance itself when it leads). */
  leader(): LeaderInfo | null {
    return this.known;
  }

  /** Leaves the election: deletes our node (the next candidate leads at once), then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    const client = this.client;
    const node = this.node;
    this.client = null;
    if (!client) return;
    if (node && client.getState() === zookeeper.State.SYNC_CONNECTED) {
      const removed = call<void>((cb) => client.remove(node, -1, (err) => cb(err, undefined))).catch(
        () => undefined,
      );
      await Promise.race([removed, new Promise((r) => setTimeout(r, 1_000).unref())]);
    }
    client.close();
  }

  private tick(): void {
    const now = Date.now();
    if (this.leading && now - this.lastTickMs > pauseLimitMs(this.options.sessionTimeoutMs)) {
      this.depose('the process stood still longer than the session allows');
    }
    this.lastTickMs = now;
    // Cut off longer than the session timeout: the server has expired the session, whether or
    // not the client ever hears so (it may keep trying its old session and say nothing). Join
    // again with a new session, as Curator declares such a connection lost.
    const since = this.disconnectedSince;
    if (since !== null && !this.closed && !this.deposedOnce && now - since > this.options.sessionTimeoutMs) {
      this.log.warn('ZooKeeper unreachable for longer than the session: joining again with a new session', {
        disconnectedMs: now - since,
      });
      const old = this.client;
      this.client = null;
      old?.close();
      this.connect();
    }
  }

  private connect(): void {
    const client = zookeeper.createClient(this.options.connect, {
      sessionTimeout: this.options.sessionTimeoutMs,
      spinDelay: 250,
      retries: 0,
    });
    this.client = client;
    this.node = null;
    this.disconnectedSince = Date.now();
    client.on('state', (state) => {
      if (this.client !== client || this.closed) return;
      this.log.debug('ZooKeeper state', { state: state.name });
      if (state === zookeeper.State.SYNC_CONNECTED) this.disconnectedSince = null;
      else this.disconnectedSince ??= Date.now();
      if (state === zookeeper.State.SYNC_CONNECTED) {
        this.log.info('connected to ZooKeeper', { sessionTimeoutMs: client.getSessionTimeout() });
        this.check();
      } else if (state === zookeeper.State.DISCONNECTED) {
        this.log.warn('ZooKeeper connection lost');
        if (this.leading) this.depose('the ZooKeeper connection was lost');
      } else if (state === zookeeper.State.EXPIRED) {
        this.log.warn('ZooKeeper session expired');
        if (this.leading || this.deposedOnce) {
          this.depose('the ZooKeeper session expired');
          return;
        }
        // A follower joins again, with a new session and a new node.
        client.close();
        this.connect();
      }
    });
    client.connect();
  }

  private depose(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.deposedOnce = true;
    this.log.warn('deposed', { epoch: this.node ? epochOf(this.node) : null, reason });
    this.emit('deposed', reason);
    // Out of the election for good: our node goes now if ZooKeeper answers, else with the session.
    // After this turn: inside the client's own state change (a lost connection) a close would be
    // overridden by the reconnect the client starts next, which would keep the session alive.
    setImmediate(() => void this.close());
  }

  /** Runs the election's check, once at a time; a request while one runs runs it again after. */
  private check(): void {
    if (this.checking) {
      this.recheck = true;
      return;
    }
    this.checking = this.checkOnce()
      .catch((err: unknown) => {
        if (this.closed) return;
        this.log.warn('election check failed; trying again', { error: (err as Error).message });
        this.recheck = true;
        return new Promise<void>((r) => setTimeout(r, 500).unref());
      })
      .finally(() => {
        this.checking = null;
        if (this.recheck && !this.closed && this.client?.getState() === zookeeper.State.SYNC_CONNECTED) {
          this.recheck = false;
          this.check();
        }
      });
  }

  private async checkOnce(): Promise<void> {
    const client = this.client;
    if (!client || this.closed || this.deposedOnce) return;
    const children = await this.ensureNode(client);
    if (!this.node) return;
    const mine = this.node.slice(this.node.lastIndexOf('/') + 1);
    const sorted = children
      .filter((c) => !Number.isNaN(sequenceOf(c)))
      .sort((a, b) => sequenceOf(a) - sequenceOf(b));
    const at = sorted.indexOf(mine);
    if (at < 0) {
      // Our node is gone (deleted by hand): join again.
      this.node = null;
      this.recheck = true;
      return;
    }
    if (at === 0) {
      this.setLeader({ ...this.options.self, epoch: epochOf(mine) });
      if (!this.leading && !this.deposedOnce) {
        this.leading = true;
        this.lastTickMs = Date.now();
        this.log.info('elected', { epoch: epochOf(mine), node: mine });
        this.emit('elected', epochOf(mine));
      }
      return;
    }
    await this.readLeader(client, sorted[0]!);
    // Watch the one just before ours: when it goes, check again.
    const predecessor = `${this.electionPath}/${sorted[at - 1]}`;
    const stat = await call((cb) =>
      client.exists(
        predecessor,
        (event: ZkEvent) => {
          if (event.getType() === zookeeper.Event.NODE_DELETED) this.check();
        },
        cb,
      ),
    );
    if (!stat) this.recheck = true;
  }

  /** Creates our node unless it exists (found by its token after a lost answer); the children. */
  private async ensureNode(client: Client): Promise<string[]> {
    await call((cb) => client.mkdirp(this.electionPath, cb));
    let children = await call<string[]>((cb) => client.getChildren(this.electionPath, (e, c) => cb(e, c)));
    const ours = children.find((c) => c.startsWith(`${NODE_PREFIX}${this.token}_`));
    if (ours) {
      this.node = `${this.electionPath}/${ours}`;
      return children;
    }
    const data = Buffer.from(JSON.stringify(this.options.self));
    this.node = await call<string>((cb) =>
      client.create(
        `${this.electionPath}/${NODE_PREFIX}${this.token}_`,
        data,
        zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL,
        cb,
      ),
    );
    this.log.info('joined the election', { node: this.node, id: this.options.self.id });
    children = await call<string[]>((cb) => client.getChildren(this.electionPath, (e, c) => cb(e, c)));
    return children;
  }

  /** Reads the leader's node (and watches it: a change or its deletion reads again). */
  private async readLeader(client: Client, node: string): Promise<void> {
    try {
      const data = await call<Buffer>((cb) =>
        client.getData(
          `${this.electionPath}/${node}`,
          () => this.check(),
          (e, d) => cb(e, d),
        ),
      );
      const parsed = JSON.parse(data.toString('utf8')) as Partial<Candidate>;
      if (typeof parsed.url !== 'string' || typeof parsed.id !== 'string') throw new Error('no url or id');
      this.setLeader({ id: parsed.id, url: parsed.url, epoch: epochOf(node) });
    } catch (err) {
      if (isNoNode(err)) {
        this.recheck = true;
        return;
      }
      this.log.warn('the leader node holds no candidate', { node, error: (err as Error).message });
      this.setLeader(null);
    }
  }

  private setLeader(info: LeaderInfo | null): void {
    const before = this.known;
    this.known = info;
    if (before?.url !== info?.url || before?.epoch !== info?.epoch) {
      this.log.info('leader', {
        leader: info?.url ?? null,
        id: info?.id ?? null,
        epoch: info?.epoch ?? null,
      });
      if (before?.url !== info?.url) this.emit('leaderChanged', info?.url ?? null);
    }
  }
}
