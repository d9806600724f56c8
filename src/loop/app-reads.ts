import { RmHttpError } from '../errors/rm-http';
import { RmRemoteError } from '../errors/rm-remote';
import type { Logger } from '../log';
import type { JobRecord } from '../store/types';
import type { ResourceManagerApi } from '../yarn/api';
import type { AppReport } from '../yarn/model';

/**
 * Which apps a cycle reads from the RM: only those the sidecar has to see, with the RM's own
 * filters of `GET /ws/v1/cluster/apps` (real RM semantics, checked by test/yarn/app-filters.ts):
 *
 * - new apps: `startedTimeBegin` from the newest start time seen, less NEW_APPS_OVERLAP_MS.
 *   Deadline apps submitted to YARN directly carry `deadline:` tags whose values vary, so they
 *   cannot be asked for by tag: each is seen in the reads of new apps while it is new.
 * - followed apps: the apps of the open admitted jobs (and waiting tickets), by their exact
 *   tags, a few hundred per read (`applicationTags` is any-of): `sidecar-id:<job>` for a job of
 *   the API, the app's `deadline:` tag for a discovered one. Those reads ask for live apps
 *   (`states=` LIVE_STATES, which the RM tests before the tags: an ended app is not tested
 *   against every tag); a followed app missing from them (ended since, or not on the RM yet) is
 *   read by its tag alone, with no state filter. They are made every `followedEvery` cycles;
 *   the cycles between read only what changed (readChanges): the RM tests every requested tag
 *   against every app that has tags, so a read by 500 tags on an RM of 10,000 apps is millions
 *   of tests, where a finish time or a state is one test an app; and a live app's report is the
 *   costliest the RM makes (its attempts, its usage from the scheduler).
 * - a followed app missing from those reads is read from its own endpoint: absence from a
 *   filtered read is not absence from the RM. One the RM does not know (404) is left out, and
 *   reconcile confirms it and marks its job lost, as it does for an app missing from a full list.
 *
 * A full read is the first read, every read after the client saw the active RM change (an HA
 * failover) until the new RM's clock has passed the window's start (it may be behind the old
 * one's by more than the overlap), and every `fullEvery` cycles: the safety net for what
 * the reads of new apps can miss (an app started before the window; a discovered app the
 * reconciler could not record in its window). It reads every live app (`states=` LIVE_STATES), the live followed apps
 * among them, and by their tags only the followed apps not among them (ended, or not on the RM
 * yet), not every app: an ended app that no open job follows has nothing to tell the
 * sidecar (discovery takes only live apps, and an ended job is not tracked again), and on a big
 * cluster the ended apps are most of the list (50,000 apps are more than rm.maxResponseBytes).
 * A followed app missing from it is read from its own endpoint, as in the filtered reads. An RM
 * that ignores `states` answers every app: that answer is used as it is. An RM that ignores a
 * filter (an app without the filtered tag, or started before startedTimeBegin, in its answer)
 * gets reads of every app instead, said once, and filtered reads are tried again after
 * `fullEvery` cycles.
 */

/** How far before the newest start time seen a read of new apps starts (clock steps between RMs). */
export const NEW_APPS_OVERLAP_MS = 15_000;
/**
 * Most characters of tags in one read's `applicationTags` at first: about 600 tags of the API's
 * jobs, so 500 followed apps are one read, not five (each read is a scan of every app in the RM).
 * The real RM (3.4, Jetty with `hadoop.http.max.request.header.size` 64 KB) takes such a URL
 * (test/yarn/app-filters.ts); a proxy in front of it may not (nginx and Apache refuse a request
 * line over 8 KB with 414): an RM that answers 414 or 431 gets reads of half as many
 * characters, down to MIN_TAG_CHARS_PER_READ, from then on.
 */
export const TAG_CHARS_PER_READ = 16_000;
/** The fewest characters of tags per read that halving after a 414 or 431 goes down to. */
export const MIN_TAG_CHARS_PER_READ = 1_000;
/** A tag longer than this is never asked for by tag (its app is read by its id). */
const MAX_TAG_CHARS = MIN_TAG_CHARS_PER_READ;
/** Followed apps read one by one at most per cycle; beyond it the cycle reads every app. */
export const MAX_SINGLE_READS = 25;
const READS_AT_ONCE = 4;
/**
 * What every read leaves out of each app (mapping reads none of it): its pending asks, its
 * timeouts and its usage per partition, about three quarters of an app's JSON on the RM 3.4. An
 * RM that knows fewer of these is asked without the others (client.ts).
 */
const DESELECTS = ['resourceRequests', 'timeouts', 'resourceInfo'];
/** The states of an app that has not ended: what a full read asks for (besides the followed apps). */
export const LIVE_STATES = ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'];
const LIVE = new Set(LIVE_STATES);
/** The states of an app that may still become RUNNING: what the reads of changes watch for. */
const WAITING = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED']);
/**
 * The states an app passes through before its scheduler takes it (milliseconds, as a rule). An
 * app the RM rejects there (no such queue, its state store failing) fails uncounted by the RM's
 * metrics: a followed app last seen in one is watched for any later state, not RUNNING alone.
 */
const NOT_ACCEPTED_YET = new Set(['NEW', 'NEW_SAVING', 'SUBMITTED']);
const AFTER_SUBMITTED = ['ACCEPTED', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED'];

/** The RM's counts of apps (its cluster metrics): submitted, and ended (finished, failed, killed). */
export interface AppCounts {
  submitted: number;
  ended: number;
}
/**
 * On a quiet cluster (no start or finish seen lately) the read of ended apps starts this long
 * before now by the sidecar's clock, not at the last start seen (which may be hours back): a
 * sidecar whose clock is ahead of the RM's by more than this sees an end at the next read of
 * every followed app instead.
 */
export const QUIET_ENDED_WINDOW_MS = 60_000;

/** Tags to read apps by, with a state filter the RM applies first (or none). */
interface TagGroup {
  tags: readonly string[];
  states: readonly string[] | undefined;
}

const isTagGroups = (x: readonly Followed[] | readonly TagGroup[]): x is readonly TagGroup[] =>
  x.length > 0 && 'tags' in x[0]!;

/** The ids and the (lower-cased) tags the followed apps are known by. */
function followedKeys(followed: readonly Followed[]): { ids: Set<string>; tags: Set<string> } {
  const ids = new Set<string>();
  const tags = new Set<string>();
  for (const f of followed) {
    if (f.appId !== null) ids.add(f.appId);
    if (f.tag !== undefined) tags.add(f.tag);
  }
  return { ids, tags };
}

/** The followed apps' tags, each once. */
const followedKeysTags = (followed: readonly Followed[]): string[] => [
  ...new Set(followed.flatMap((f) => (f.tag === undefined ? [] : [f.tag]))),
];

/** An open job whose app the cycle must see. */
export interface Followed {
  jobId: string;
  appId: string | null;
  /** The tag to read its app by (lower-cased), or undefined: read by its id alone. */
  tag: string | undefined;
}

export interface AppsRead {
  apps: AppReport[];
  /**
   * A full read: every live app on the RM and every followed one (an app not in it has ended,
   * or is unknown to the RM), or only those the sidecar follows and the new ones.
   */
  full: boolean;
}

/** The tag an open job's app is read by: its `sidecar-id:` tag, or a discovered app's deadline tag. */
export function followedOf(job: JobRecord): Followed {
  let tag: string | undefined;
  if (job.source === 'api') tag = `sidecar-id:${job.id}`.toLowerCase();
  else {
    const tags = (job.spec as { tags?: unknown } | null)?.tags;
    const deadline = Array.isArray(tags)
      ? tags.find((t): t is string => typeof t === 'string' && t.toLowerCase().startsWith('deadline:'))
      : undefined;
    tag = deadline?.trim().toLowerCase();
  }
  // The RM splits the parameter at commas: such a tag cannot be asked for.
  if (tag !== undefined && (tag.includes(',') || tag.length > MAX_TAG_CHARS)) tag = undefined;
  return { jobId: job.id, appId: job.appId, tag };
}

/** Tags in groups whose joined length stays within TAG_CHARS_PER_READ. */
export function tagChunks(tags: Iterable<string>, maxChars = TAG_CHARS_PER_READ): string[][] {
  const out: string[][] = [];
  let chunk: string[] = [];
  let chars = 0;
  for (const t of tags) {
    if (chunk.length > 0 && chars + t.length + 1 > maxChars) {
      out.push(chunk);
      chunk = [];
      chars = 0;
    }
    chunk.push(t);
    chars += t.length + 1;
  }
  if (chunk.length > 0) out.push(chunk);
  return out;
}

class FilterIgnored extends Error {}

/** The RM, or a proxy before it, refused a read's URL as too long (414 URI Too Long, 431). */
function urlTooLong(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return (err instanceof RmHttpError || err instanceof RmRemoteError) && (status === 414 || status === 431);
}

/** Thrown by a live read whose answer holds ended apps: the RM ignored `states`, this is every app. */
class EveryApp {
  constructor(readonly apps: AppReport[]) {}
}

export class AppReader {
  private cycle = 0;
  /** The newest start time among the apps read (RM clock, epoch ms). */
  private newestStartMs: number | undefined;
  /** Full reads until this cycle, after the RM ignored a filter. */
  private fullUntil = 0;
  private warnedIgnored = false;
  /** Whether the last cycle's reads all passed their checks (see withTagged). */
  private filtersApplied = false;
  /** Characters of tags per read: TAG_CHARS_PER_READ, halved after each 414 or 431. */
  private tagChars: number;
  /** The newest finish time among the apps read (RM clock, epoch ms). */
  private newestFinishMs: number | undefined;
  /** The last report of each followed app, by id (the followed apps' reads between refresh them). */
  private readonly known = new Map<string, AppReport>();
  /** Cycles since every followed app was last read by its tags. */
  private sinceFollowedRead = 0;
  /** The RM's counts of apps submitted and ended that the reads so far have covered. */
  private seenCounts: Partial<AppCounts> = {};
  /**
   * A lower bound of the RM's clock (epoch ms) from the apps read: a live app's start plus its
   * elapsed time (the RM's now when it answered), an ended app's finish.
   */
  private rmClockMs: number | undefined;
  /** The RM client's count of active-RM changes as last seen (ResourceManagerApi.activeChanges). */
  private activeChanges: number | undefined;
  /** After an RM change: full reads until the RM's clock shows this time (followActiveRm). */
  private catchUpMs: number | undefined;

  constructor(
    private readonly deps: {
      rm: ResourceManagerApi;
      log: Logger;
      /** A full read every this many cycles (1: every cycle, as before filtered reads). */
      fullEvery: number;
      /** Characters of tags per read to start with (default TAG_CHARS_PER_READ). */
      tagCharsPerRead?: number;
      /**
       * The followed apps are all read by their tags every this many cycles (and at every full
       * read); between, only what changed (see readChanges). 1 (the default here): every cycle.
       */
      followedEvery?: number;
      /** Epoch ms (the sidecar's clock), for the window of ended apps. Default Date.now. */
      now?: () => number;
    },
  ) {
    this.tagChars = deps.tagCharsPerRead ?? TAG_CHARS_PER_READ;
  }

  /**
   * This cycle's apps: a full read when one is due, else the filtered reads (see above). `counts`,
   * the RM's counts of apps submitted and ended as its metrics read them before this cycle's
   * reads, let a cycle leave out a read of what did not move (readChanges).
   */
  async read(followed: readonly Followed[], counts?: AppCounts): Promise<AppsRead> {
    const n = this.cycle++;
    const { fullEvery } = this.deps;
    this.followActiveRm();
    if (n < this.fullUntil) return this.every();
    const full =
      this.newestStartMs === undefined ||
      this.catchUpMs !== undefined ||
      fullEvery <= 1 ||
      n % fullEvery === 0;
    try {
      const every = full || this.followedReadDue();
      const changes: { read: Partial<AppCounts> } = { read: {} };
      const apps = full
        ? await this.live(followed)
        : every
          ? await this.filtered(followed)
          : await this.readChanges(followed, counts, changes);
      if (apps) {
        this.remember(apps, followed, every);
        // The counts the reads made cover: a full read or a read of every followed app saw the
        // new apps (the live ones, or those of the window) and every followed app's end.
        if (counts !== undefined)
          this.seenCounts = every ? { ...counts } : { ...this.seenCounts, ...changes.read };
        return full ? this.fullRead(apps) : { apps, full: false };
      }
    } catch (err) {
      if (!(err instanceof FilterIgnored)) throw err;
      this.fullUntil = n + fullEvery;
      if (!this.warnedIgnored) {
        this.warnedIgnored = true;
        this.deps.log.warn('the RM ignores a filter of GET /apps; every app is read instead', {
          filter: err.message,
          retryAfterCycles: fullEvery,
        });
      }
    }
    return this.every();
  }

  /**
   * After the active RM changed, reads every live app each cycle until the new RM's clock has
   * passed where the window of new apps stood: its clock may be behind its predecessor's, and a
   * window anchored on the old clock would leave out the apps it starts until then.
   */
  private followActiveRm(): void {
    const changes = this.deps.rm.activeChanges;
    const moved = changes !== undefined && this.activeChanges !== undefined && changes !== this.activeChanges;
    this.activeChanges = changes;
    if (!moved || this.newestStartMs === undefined) return;
    this.catchUpMs = Math.max(this.newestStartMs, this.rmClockMs ?? 0);
    this.deps.log.info('the active RM changed: every live app is read until its clock passes the last', {
      activeChanges: changes,
      until: new Date(this.catchUpMs).toISOString(),
    });
  }

  /** Whether a full read shows the new RM's clock past catchUpMs (a live app's start + elapsed). */
  private caughtUp(apps: readonly AppReport[]): void {
    if (this.catchUpMs === undefined) return;
    const now = Math.max(
      ...apps
        .filter((a) => !(a.finishedTime > 0) && a.elapsedTime >= 0)
        .map((a) => a.startedTime + a.elapsedTime),
    );
    if (Number.isFinite(now) && now >= this.catchUpMs) this.catchUpMs = undefined;
  }

  /** Every app on the RM, unfiltered: for an RM that ignores filters. */
  private async every(): Promise<AppsRead> {
    const apps = await this.deps.rm.apps({ deSelects: DESELECTS });
    this.known.clear();
    this.sinceFollowedRead = 0;
    return this.fullRead(apps);
  }

  /** Whether this cycle reads every followed app by its tags (counted from the last such read). */
  private followedReadDue(): boolean {
    const every = this.deps.followedEvery ?? 1;
    return every <= 1 || this.sinceFollowedRead + 1 >= every;
  }

  /**
   * Keeps the last report of each followed app (an app whose id is followed, or carrying a
   * followed tag), and only those. After a read of every followed app (`every`), what it did
   * not show is dropped: an app followed by its tag alone may have been replaced.
   */
  private remember(apps: readonly AppReport[], followed: readonly Followed[], every: boolean): void {
    const { ids, tags } = followedKeys(followed);
    const isFollowed = (a: AppReport) =>
      ids.has(a.id) || a.applicationTags.some((t) => tags.has(t.toLowerCase()));
    if (every) {
      this.known.clear();
      this.sinceFollowedRead = 0;
    } else {
      this.sinceFollowedRead++;
      for (const [id, a] of this.known) if (!isFollowed(a)) this.known.delete(id);
    }
    for (const a of apps) if (isFollowed(a)) this.known.set(a.id, a);
    for (const a of apps) this.sawEnd(a);
    this.sawClock(apps);
  }

  private sawClock(apps: readonly AppReport[]): void {
    for (const a of apps) {
      const at = a.finishedTime > 0 ? a.finishedTime : a.elapsedTime > 0 ? a.startedTime + a.elapsedTime : 0;
      if (Number.isFinite(at) && at > (this.rmClockMs ?? 0)) this.rmClockMs = at;
    }
  }

  /**
   * Where a read of new apps starts: the overlap before the newest start seen or, later, the RM's
   * clock as last seen. Anchored to the newest start alone, a burst of submissions followed by a
   * quiet spell would be read again every cycle while nothing newer starts.
   */
  private newAppsBegin(): number {
    return Math.max(0, Math.max(this.newestStartMs ?? 0, this.rmClockMs ?? 0) - NEW_APPS_OVERLAP_MS);
  }

  private sawEnd(a: AppReport): void {
    if (a.finishedTime > (this.newestFinishMs ?? 0) && Number.isFinite(a.finishedTime))
      this.newestFinishMs = a.finishedTime;
  }

  /**
   * The reads between two reads of every followed app: what changed since, each with a filter
   * the RM tests before it looks at tags, so that its scan stays one cheap test an app, and each
   * only when the RM's metrics say something moved (`counts`, read before this cycle's reads):
   *
   * - the new apps (startedTimeBegin, newAppsBegin), when the count of apps submitted moved since
   *   the last read of them;
   * - the apps ended since (finishedTimeBegin from the newest start or finish seen, or a minute
   *   back by the sidecar's clock on a quiet cluster, less the overlap; only the followed ones
   *   are kept), when the count of apps ended (finished, failed, killed) moved;
   * - the followed apps last seen waiting (NEW to ACCEPTED) that are RUNNING now, every cycle
   *   while one waits: `states=RUNNING` with their tags (the RM tests the state before the tags,
   *   so only its running apps are tested against them, and only those that started are
   *   reported). No count tells when: the RM counts an app running when its AM's container is
   *   allocated, seconds before the app is RUNNING (its AM registered). One last seen before
   *   ACCEPTED (NEW to SUBMITTED, milliseconds as a rule) is watched for any later state: the RM
   *   may reject it there without counting it;
   * - followed apps never read (an id recorded but never seen), by their tags.
   *
   * Every other followed app is taken as last read. What these do not show (a priority or queue
   * set by someone else, an app sent back to ACCEPTED for a new attempt, an app the RM forgot, an
   * app the RM ended or took without counting it) is seen at the next read of every followed app,
   * `followedEvery` cycles at most. Without `counts` both reads of new and ended apps are made.
   * Undefined when too many followed apps are missing (the caller reads every app).
   */
  private async readChanges(
    followed: readonly Followed[],
    counts: AppCounts | undefined,
    made: { read: Partial<AppCounts> },
  ): Promise<AppReport[] | undefined> {
    const { rm } = this.deps;
    const begin = this.newAppsBegin();
    const now = (this.deps.now ?? Date.now)();
    const endedBegin = Math.max(
      0,
      Math.max(this.newestStartMs ?? 0, this.newestFinishMs ?? 0, now - QUIET_ENDED_WINDOW_MS) -
        NEW_APPS_OVERLAP_MS,
    );
    const { ids, tags } = followedKeys(followed);
    const readNew = counts === undefined || counts.submitted !== this.seenCounts.submitted;
    const readEnded =
      ids.size + tags.size > 0 && (counts === undefined || counts.ended !== this.seenCounts.ended);
    const cached = [...this.known.values()];
    const cachedTags = new Set(cached.flatMap((a) => a.applicationTags.map((t) => t.toLowerCase())));
    const followedTags = (inStates: ReadonlySet<string>) =>
      new Set(
        cached
          .filter((a) => inStates.has(a.state))
          .flatMap((a) => a.applicationTags.map((t) => t.toLowerCase()).filter((t) => tags.has(t))),
      );
    const submitted = followedTags(NOT_ACCEPTED_YET);
    const waiting = [...followedTags(WAITING)].filter((t) => !submitted.has(t));
    const unseen = new Set(
      followed
        .filter((f) => f.appId !== null && !this.known.has(f.appId) && f.tag !== undefined)
        .filter((f) => !cachedTags.has(f.tag!))
        .map((f) => f.tag!),
    );
    const isFollowed = (a: AppReport) =>
      ids.has(a.id) || a.applicationTags.some((t) => tags.has(t.toLowerCase()));
    const { first, byId } = await this.withTagged(
      async () => {
        const [fresh, ended] = await Promise.all([
          readNew ? rm.apps({ startedTimeBegin: begin, deSelects: DESELECTS }) : [],
          readEnded ? rm.apps({ finishedTimeBegin: endedBegin, deSelects: DESELECTS }) : [],
        ]);
        if (fresh.some((a) => a.startedTime < begin)) throw new FilterIgnored('startedTimeBegin');
        if (ended.some((a) => !(a.finishedTime >= endedBegin))) throw new FilterIgnored('finishedTimeBegin');
        return [...ended.filter(isFollowed), ...fresh];
      },
      [
        { tags: waiting, states: ['RUNNING'] },
        { tags: [...submitted], states: AFTER_SUBMITTED },
        { tags: [...unseen], states: undefined },
      ],
      cached,
    );
    if (!(await this.missingInto(byId, followed))) return undefined;
    this.sawStarts(first);
    if (counts !== undefined) {
      if (readNew) made.read.submitted = counts.submitted;
      if (readEnded) made.read.ended = counts.ended;
    }
    return [...byId.values()];
  }

  /**
   * A full read's apps. Until one has shown an app (an RM with no app yet, or none live), the
   * newest start time stays unknown and the next cycle reads in full again (cheap on such an
   * RM): a read of new apps from time 0 would be a read of every app, ended ones included,
   * too large for rm.maxResponseBytes on a big cluster, every cycle until the next full read.
   */
  private fullRead(apps: AppReport[]): AppsRead {
    this.sawStarts(apps);
    this.caughtUp(apps);
    return { apps, full: true };
  }

  /**
   * The live apps and the followed ones (see the class comment), or undefined when too many
   * followed apps are missing from them. An RM that ignores `states` (an ended app in its
   * answer) has answered every app: that answer is the full read.
   */
  private async live(followed: readonly Followed[]): Promise<AppReport[] | undefined> {
    try {
      // The live followed apps come with the live ones: only the others are read by their tags.
      const { byId } = await this.withTagged(async () => {
        const live = await this.deps.rm.apps({ states: LIVE_STATES, deSelects: DESELECTS });
        if (live.some((a) => !LIVE.has(a.state))) throw new EveryApp(live);
        return live;
      }, []);
      await this.missingByTag(byId, followed);
      return (await this.missingInto(byId, followed)) ? [...byId.values()] : undefined;
    } catch (err) {
      if (err instanceof EveryApp) return err.apps;
      throw err;
    }
  }

  private sawStarts(apps: readonly AppReport[]): void {
    for (const a of apps)
      if (a.startedTime > (this.newestStartMs ?? 0) && Number.isFinite(a.startedTime))
        this.newestStartMs = a.startedTime;
  }

  /**
   * The filtered reads, or undefined when too many followed apps are missing from them. The
   * followed apps are asked for with `states=` LIVE_STATES, which the RM tests before the tags:
   * the ended apps (most of a big RM's) are not tested against every tag. A followed app missing
   * from that read (ended, or not on the RM yet) is read by its tag alone (missingByTag).
   */
  private async filtered(followed: readonly Followed[]): Promise<AppReport[] | undefined> {
    const { rm } = this.deps;
    const begin = this.newAppsBegin();
    const { first: fresh, byId } = await this.withTagged(async () => {
      const fresh = await rm.apps({ startedTimeBegin: begin, deSelects: DESELECTS });
      if (fresh.some((a) => a.startedTime < begin)) throw new FilterIgnored('startedTimeBegin');
      return fresh;
    }, [{ tags: followedKeysTags(followed), states: LIVE_STATES }]);
    await this.missingByTag(byId, followed);
    if (!(await this.missingInto(byId, followed))) return undefined;
    this.sawStarts(fresh);
    return [...byId.values()];
  }

  /**
   * `first` (the live or the new apps) and the followed apps by their tags, by id (a tagged
   * read's report over `first`'s). Until the RM has shown that it applies the filters, `first`
   * is read alone, then the first tag read alone, then the others READS_AT_ONCE at a time: an
   * RM that ignores a filter answers every app, and that is found after one such answer, not
   * several at once. Once a cycle's reads have all passed their checks, `first` and the tag
   * reads go together (READS_AT_ONCE + 1 at a time): with up to READS_AT_ONCE tag reads a cycle
   * waits for one round trip to the RM where it waited for three. Any check failing makes the
   * next reads careful again.
   */
  private async withTagged(
    first: () => Promise<AppReport[]>,
    followed: readonly Followed[] | readonly TagGroup[],
    /** Reports taken as they are unless a read shows the app again (readChanges). */
    base: readonly AppReport[] = [],
  ): Promise<{ first: AppReport[]; byId: Map<string, AppReport> }> {
    const groups: readonly TagGroup[] = isTagGroups(followed)
      ? followed
      : [{ tags: followedKeysTags(followed), states: undefined }];
    for (;;) {
      try {
        return await this.withTaggedOnce(first, groups, base);
      } catch (err) {
        if (!urlTooLong(err) || this.tagChars <= MIN_TAG_CHARS_PER_READ) throw err;
        // The URL was too long for the RM or a proxy before it: shorter reads, now and from now on.
        const was = this.tagChars;
        this.tagChars = Math.max(MIN_TAG_CHARS_PER_READ, Math.floor(was / 2));
        this.deps.log.warn('the RM refused a read of apps by tag as too long; reads ask for fewer tags', {
          status: (err as { status: number }).status,
          tagCharsPerRead: this.tagChars,
          was,
        });
      }
    }
  }

  private async withTaggedOnce(
    first: () => Promise<AppReport[]>,
    groups: readonly TagGroup[],
    base: readonly AppReport[],
  ): Promise<{ first: AppReport[]; byId: Map<string, AppReport> }> {
    const { rm } = this.deps;
    const chunks = groups.flatMap((g) =>
      tagChunks(new Set(g.tags), this.tagChars).map((chunk) => ({ chunk, states: g.states })),
    );
    const tagged: AppReport[][] = [];
    const byTags = (i: number) => async (): Promise<void> => {
      const { chunk, states } = chunks[i]!;
      const got = await rm.apps({
        applicationTags: chunk,
        ...(states === undefined ? {} : { states: [...states] }),
        deSelects: DESELECTS,
      });
      const want = new Set(chunk);
      for (const a of got) {
        if (!a.applicationTags.some((t) => want.has(t.toLowerCase())))
          throw new FilterIgnored('applicationTags');
        if (states !== undefined && !states.includes(a.state)) throw new FilterIgnored('states');
      }
      tagged[i] = got;
    };
    const reads = chunks.map((_, i) => byTags(i));
    let firstApps: AppReport[] = [];
    const readFirst = async (): Promise<void> => {
      firstApps = await first();
    };
    const trusted = this.filtersApplied;
    this.filtersApplied = false;
    if (trusted) await inPool([readFirst, ...reads], READS_AT_ONCE + 1);
    else {
      await readFirst();
      if (reads.length > 0) await reads[0]!();
      await inPool(reads.slice(1), READS_AT_ONCE);
    }
    this.filtersApplied = true;
    const byId = new Map(base.map((a) => [a.id, a]));
    for (const a of firstApps) byId.set(a.id, a);
    for (const got of tagged) for (const a of got) byId.set(a.id, a);
    return { first: firstApps, byId };
  }

  /**
   * The followed apps missing from `byId` (an app id not in it, or a tag no app in it carries),
   * read by their tags, with no state filter: after a read of the live apps, the followed apps
   * that ended (a few, until their jobs close), and those not on the RM yet.
   */
  private async missingByTag(byId: Map<string, AppReport>, followed: readonly Followed[]): Promise<void> {
    const shown = new Set([...byId.values()].flatMap((a) => a.applicationTags.map((t) => t.toLowerCase())));
    const tags = followed.flatMap((f) =>
      f.tag !== undefined && (f.appId === null ? !shown.has(f.tag) : !byId.has(f.appId)) ? [f.tag] : [],
    );
    if (tags.length === 0) return;
    const { byId: got } = await this.withTagged(async () => [], [{ tags, states: undefined }]);
    for (const [id, a] of got) byId.set(id, a);
  }

  /**
   * The followed apps missing from `byId` read from their own endpoints. False when more than
   * MAX_SINGLE_READS are missing (the caller reads every app).
   */
  private async missingInto(byId: Map<string, AppReport>, followed: readonly Followed[]): Promise<boolean> {
    const missing = followed.filter((f) => f.appId !== null && !byId.has(f.appId));
    if (missing.length > MAX_SINGLE_READS) {
      this.deps.log.info('followed apps missing from the filtered reads; every app is read instead', {
        missing: missing.length,
      });
      return false;
    }
    for (const f of missing) {
      try {
        const app = await this.deps.rm.app(f.appId!);
        byId.set(app.id, app);
      } catch {
        // Unknown to the RM (404) or not answered: left out; reconcile asks again, and marks
        // its job lost only on a 404, as for an app missing from a full read.
      }
    }
    return true;
  }
}

/**
 * Runs `tasks` at most `limit` at once, each started when one before it ends; rejects with the
 * first failure, after which no further task is started (those running are let finish).
 */
async function inPool(tasks: ReadonlyArray<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (next < tasks.length && !failed) {
      const task = tasks[next++]!;
      try {
        await task();
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}
