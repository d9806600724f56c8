/**
 * The poll's reads of apps (src/loop/app-reads.ts): a full read first and every fullEvery
 * cycles, filtered reads between them (new apps by start time, followed apps by their exact
 * tags), a followed app missing from them read from its own endpoint, and full reads instead
 * when the RM ignores a filter.
 */
import { RmHttpError } from '../../src/errors/rm-http';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { AppReader, followedOf, tagChunks, type Followed } from '../../src/loop/app-reads';
import { silentLogger } from '../../src/log';
import type { JobRecord } from '../../src/store/types';
import type { AppQuery, ResourceManagerApi } from '../../src/yarn/api';
import type { AppReport } from '../../src/yarn/model';

function app(id: string, startedTime: number, tags: string[], state = 'RUNNING'): AppReport {
  return { id, startedTime, applicationTags: tags, state, finishedTime: 0 } as unknown as AppReport;
}

/** An RM holding `apps`, applying the filters as a real RM does unless `ignores` is set. */
function rmOf(apps: AppReport[], o: { ignores?: boolean } = {}) {
  const calls: string[] = [];
  const rm = {
    apps: async (q: AppQuery = {}) => {
      calls.push(
        q.applicationTags
          ? `${q.states ? `${q.states.join(',')} ` : ''}tags ${q.applicationTags.length}`
          : q.startedTimeBegin !== undefined
            ? 'new'
            : q.finishedTimeBegin !== undefined
              ? 'ended'
              : q.states
                ? 'live'
                : 'all',
      );
      if (o.ignores) return apps;
      const tags = (q.applicationTags ?? []).map((t) => t.toLowerCase());
      const states = (q.states ?? []).map((x) => x.toUpperCase());
      return apps.filter(
        (a) =>
          (q.startedTimeBegin === undefined || a.startedTime >= q.startedTimeBegin) &&
          (q.finishedTimeBegin === undefined || a.finishedTime >= q.finishedTimeBegin) &&
          (states.length === 0 || states.includes(a.state)) &&
          (tags.length === 0 || a.applicationTags.some((t) => tags.includes(t))),
      );
    },
    app: async (id: string) => {
      calls.push(`app ${id}`);
      const a = apps.find((x) => x.id === id);
      if (!a)
        throw new RmRemoteError({
          status: 404,
          exception: 'NotFoundException',
          javaClassName: 'NotFoundException',
          message: `app with id: ${id} not found`,
          url: `http://rm/ws/v1/cluster/apps/${id}`,
        });
      return a;
    },
  } as unknown as ResourceManagerApi;
  return { rm, calls };
}

const warnings: string[] = [];
const log = silentLogger();
log.warn = ((m: string) => void warnings.push(m)) as unknown as typeof log.warn;

const T = 1_800_000_000_000;
/** How rmOf notes a read of followed apps by tag that asks for live ones only. */
const LIVE_TAGS = 'NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING tags';
const others = Array.from({ length: 50 }, (_, i) =>
  app(`application_1_${1000 + i}`, T - 3_600_000 + i, ['team:x']),
);

describe('AppReader', () => {
  beforeEach(() => warnings.splice(0));

  it('reads every live app and the followed ones first, then only new and followed apps, and the first again each fullEvery cycles', async () => {
    const ours = app('application_1_0001', T, ['sidecar-id:dl-a', 'deadline:2030-01-01t00:00:00.000z']);
    const { rm, calls } = rmOf([...others, ours]);
    const reader = new AppReader({ rm, log, fullEvery: 3 });
    const followed: Followed[] = [{ jobId: 'dl-a', appId: ours.id, tag: 'sidecar-id:dl-a' }];
    const first = await reader.read(followed);
    expect(first.full).toBe(true);
    expect(first.apps).toHaveLength(51);
    const second = await reader.read(followed);
    expect(second.full).toBe(false);
    // The new-apps window starts before the newest start seen: ours again, none of the old ones.
    expect(second.apps.map((a) => a.id)).toEqual([ours.id]);
    expect((await reader.read(followed)).full).toBe(false);
    expect((await reader.read(followed)).full).toBe(true);
    // The live followed app comes with the live apps: no read by tag in a full read. Between, the
    // followed apps by tag, live ones only (the RM tests the state first).
    expect(calls).toEqual(['live', 'new', `${LIVE_TAGS} 1`, 'new', `${LIVE_TAGS} 1`, 'live']);
  });

  it('leaves ended apps out of a full read unless followed: a followed one that ended still comes', async () => {
    const ended = (id: string, tags: string[]) => ({
      ...app(id, T - 60_000, tags, 'FINISHED'),
      finishedTime: T,
    });
    const oursEnded = ended('application_1_0005', ['sidecar-id:dl-e']);
    const untagged = ended('application_1_0006', ['x']);
    const theirs = ended('application_1_0007', ['team:y']);
    const { rm, calls } = rmOf([...others, oursEnded, untagged, theirs]);
    const reader = new AppReader({ rm, log, fullEvery: 60 });
    const read = await reader.read([
      { jobId: 'dl-e', appId: oursEnded.id, tag: 'sidecar-id:dl-e' },
      // Followed with no tag to read it by: from its own endpoint.
      { jobId: 'dl-f', appId: untagged.id, tag: undefined },
    ]);
    expect(read.full).toBe(true);
    const ids = read.apps.map((a) => a.id);
    expect(ids).toHaveLength(52);
    expect(ids).toEqual(expect.arrayContaining([oursEnded.id, untagged.id]));
    expect(ids).not.toContain(theirs.id);
    expect(calls).toEqual(['live', 'tags 1', `app ${untagged.id}`]);
  });

  it('reads every live app after a failover to an RM whose clock is behind, until its clock passes the window', async () => {
    const ours = { ...app('application_1_0001', T, ['sidecar-id:dl-a']), elapsedTime: 0 };
    const apps: AppReport[] = [...others, ours];
    const { rm, calls } = rmOf(apps);
    let changes = 0;
    Object.defineProperty(rm, 'activeChanges', { get: () => changes });
    const reader = new AppReader({ rm, log, fullEvery: 60 });
    const followed: Followed[] = [{ jobId: 'dl-a', appId: ours.id, tag: 'sidecar-id:dl-a' }];
    const ids = (r: { apps: AppReport[] }) => r.apps.map((a) => a.id);
    expect((await reader.read(followed)).full).toBe(true);
    expect((await reader.read(followed)).full).toBe(false);
    // The standby takes over with its clock 40 s behind: an app it starts is stamped 39 s before
    // the newest start the old RM showed, outside the window's overlap of 15 s. The new RM's
    // clock reads T - 38 s: ours, started "later", has no elapsed time (the RM's -1).
    const late = { ...app('application_2_0001', T - 39_000, ['team:z']), elapsedTime: 1_000 };
    ours.elapsedTime = -1;
    apps.push(late);
    expect(ids(await reader.read(followed))).not.toContain(late.id);
    changes = 1;
    const after = await reader.read(followed);
    expect(after.full).toBe(true);
    expect(ids(after)).toContain(late.id);
    // Its clock still behind the old window: every live app again, the next new one among them.
    const next = { ...app('application_2_0002', T - 30_000, ['team:z']), elapsedTime: 0 };
    apps.push(next);
    late.elapsedTime = 9_000;
    const again = await reader.read(followed);
    expect(again.full).toBe(true);
    expect(ids(again)).toContain(next.id);
    // Its clock passes T: this full read shows it, and filtered reads resume.
    late.elapsedTime = 40_000;
    ours.elapsedTime = 1_000;
    expect((await reader.read(followed)).full).toBe(true);
    expect((await reader.read(followed)).full).toBe(false);
    expect(calls.filter((c) => c === 'live')).toHaveLength(4);
  });

  it('takes the answer of an RM that ignores states as the full read', async () => {
    const theirs = { ...app('application_1_0008', T - 60_000, ['team:y'], 'KILLED'), finishedTime: T };
    const { rm, calls } = rmOf([...others, theirs], { ignores: true });
    const reader = new AppReader({ rm, log, fullEvery: 60 });
    const read = await reader.read([{ jobId: 'dl-g', appId: null, tag: 'sidecar-id:dl-g' }]);
    expect(read.full).toBe(true);
    expect(read.apps).toHaveLength(51);
    expect(calls).toEqual(['live']);
  });

  it('reads a followed app missing from the filtered reads from its own endpoint; a 404 is left out', async () => {
    const ours = app('application_1_0002', T - 7_200_000, ['no-tag-we-know']);
    const { rm, calls } = rmOf([...others, ours]);
    const reader = new AppReader({ rm, log, fullEvery: 100 });
    await reader.read([]);
    const followed: Followed[] = [
      { jobId: 'dl-b', appId: ours.id, tag: 'sidecar-id:dl-b' },
      { jobId: 'dl-c', appId: 'application_1_0404', tag: 'sidecar-id:dl-c' },
    ];
    const read = await reader.read(followed);
    expect(read.full).toBe(false);
    expect(read.apps.map((a) => a.id)).toContain(ours.id);
    expect(read.apps.map((a) => a.id)).not.toContain('application_1_0404');
    // Missing from the read of live followed apps: by their tags alone, then by their ids.
    expect(calls.slice(1)).toEqual([
      'new',
      `${LIVE_TAGS} 2`,
      'tags 2',
      `app ${ours.id}`,
      'app application_1_0404',
    ]);
  });

  it('reads every app when the RM ignores a filter, says so once, and tries the filters again later', async () => {
    const ours = app('application_1_0003', T, ['sidecar-id:dl-d']);
    const { rm, calls } = rmOf([...others, ours], { ignores: true });
    const reader = new AppReader({ rm, log, fullEvery: 4 });
    const followed: Followed[] = [{ jobId: 'dl-d', appId: ours.id, tag: 'sidecar-id:dl-d' }];
    for (let i = 0; i < 6; i++) {
      const read = await reader.read(followed);
      expect(read.full).toBe(true);
      expect(read.apps).toHaveLength(51);
    }
    expect(warnings).toEqual(['the RM ignores a filter of GET /apps; every app is read instead']);
    // Cycle 0's answer held no ended app (nothing to tell); cycle 1 found it out (its new apps
    // read, with the followed ones by tag: cycle 0's reads had passed their checks), cycles 2 to 4
    // read everything, cycle 5 tried again, carefully: the new apps alone first.
    expect(calls).toEqual(['live', 'new', `${LIVE_TAGS} 1`, 'all', 'all', 'all', 'all', 'new', 'all']);
  });
});

describe('AppReader: reads in flight together', () => {
  beforeEach(() => warnings.splice(0));

  /** An RM whose answers take a few turns of the event loop; each call notes how many were in flight as it began. */
  function slowRm(apps: AppReport[], ignoreTags: { now: boolean }) {
    const started: string[] = [];
    let inFlight = 0;
    const { rm: fast } = rmOf(apps);
    const { rm: ignoring } = rmOf(apps, { ignores: true });
    const later = async <T>(what: string, answer: () => Promise<T>): Promise<T> => {
      inFlight++;
      started.push(`${what}@${inFlight}`);
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      inFlight--;
      return answer();
    };
    const rm = {
      apps: (q: AppQuery = {}) =>
        later(
          q.applicationTags ? 'tags' : q.startedTimeBegin !== undefined ? 'new' : q.states ? 'live' : 'all',
          () => (q.applicationTags && ignoreTags.now ? ignoring : fast).apps(q),
        ),
      app: (id: string) => later('app', () => fast.app(id)),
    } as unknown as ResourceManagerApi;
    return { rm, started };
  }

  it('reads the new apps and the tagged ones together once the RM has shown it applies the filters, and carefully again after it ignored one', async () => {
    // Tags of 1,400 characters: two to a read, ten followed apps in five reads.
    const followed: Followed[] = [];
    const ours: AppReport[] = [];
    for (let i = 0; i < 10; i++) {
      const tag = `sidecar-id:dl-${String(i).padStart(2, '0')}-${'x'.repeat(1385)}`;
      ours.push(app(`application_1_${2000 + i}`, T + i, [tag]));
      followed.push({ jobId: `dl-${i}`, appId: ours[i]!.id, tag });
    }
    const ignoreTags = { now: false };
    const all = [...others, ...ours];
    const { rm, started } = slowRm(all, ignoreTags);
    const reader = new AppReader({ rm, log, fullEvery: 3, tagCharsPerRead: 3_000 });
    const cycle = async () => {
      started.splice(0);
      return reader.read(followed);
    };

    // Cycle 0: the live apps, the followed ones among them: no read by tag.
    expect((await cycle()).apps).toHaveLength(60);
    expect(started).toEqual(['live@1']);
    // Cycle 1: the new apps and the tag reads together, five in flight, the last as one ends.
    const second = await cycle();
    expect(second.full).toBe(false);
    expect(second.apps.map((a) => a.id).sort()).toEqual(ours.map((a) => a.id));
    expect(started).toEqual(['new@1', 'tags@2', 'tags@3', 'tags@4', 'tags@5', 'tags@5']);

    // Cycle 2: the RM answers every app to a tag read. Found; every app read in this cycle and
    // the next two (fullEvery), then a filtered try, careful again; then together again.
    ignoreTags.now = true;
    expect((await cycle()).full).toBe(true);
    expect(started.slice(0, 5)).toEqual(['new@1', 'tags@2', 'tags@3', 'tags@4', 'tags@5']);
    expect(started.at(-1)).toMatch(/^all@/);
    expect(warnings).toEqual(['the RM ignores a filter of GET /apps; every app is read instead']);
    ignoreTags.now = false;
    for (let i = 3; i < 5; i++) {
      expect((await cycle()).full).toBe(true);
      expect(started).toEqual(['all@1']);
    }
    expect((await cycle()).full).toBe(false);
    expect(started).toEqual(['new@1', 'tags@1', 'tags@1', 'tags@2', 'tags@3', 'tags@4']);
    // Cycle 6, a full read: the live apps, and by tag the followed ones not among them, together.
    // Four followed apps have ended: two reads by tag (two tags to a read).
    for (let i = 0; i < 4; i++)
      all[others.length + i] = { ...ours[i]!, state: 'FINISHED', finishedTime: T + 60_000 };
    const full = await cycle();
    expect(full.full).toBe(true);
    expect(full.apps.filter((a) => a.state === 'FINISHED')).toHaveLength(4);
    expect(started).toEqual(['live@1', 'tags@1', 'tags@2']);
  });
});

describe('AppReader: an RM that refuses a long URL', () => {
  beforeEach(() => warnings.splice(0));

  /** rmOf's RM, answering 414 (or 431) to a read whose tags come to more than `maxChars`. */
  function shortUrlRm(apps: AppReport[], maxChars: number, status = 414) {
    const { rm: inner, calls } = rmOf(apps);
    const sizes: number[] = [];
    const rm = {
      ...inner,
      apps: async (q: AppQuery = {}) => {
        const chars = q.applicationTags?.join(',').length;
        if (chars !== undefined) sizes.push(chars);
        if (chars !== undefined && chars > maxChars)
          throw new RmHttpError({
            status,
            text: '<h1>Bad Message 414</h1><pre>reason: URI Too Long</pre>',
            url: 'http://rm/ws/v1/cluster/apps',
          });
        return inner.apps(q);
      },
    } as unknown as ResourceManagerApi;
    return { rm, calls, sizes };
  }

  const followedApps = (n: number) => {
    const ours: AppReport[] = [];
    const followed: Followed[] = [];
    for (let i = 0; i < n; i++) {
      const tag = `sidecar-id:dl-${String(i).padStart(16, '0')}`;
      ours.push(app(`application_1_${5000 + i}`, T + i, [tag]));
      followed.push({ jobId: `dl-${i}`, appId: ours[i]!.id, tag });
    }
    return { ours, followed };
  };

  describe('between two reads of every followed app (followedEvery)', () => {
    const tagsOf = (job: string) => [`sidecar-id:${job}`, 'deadline:2030-01-01t00:00:00.000z'];
    const follow = (job: string, appId: string | null): Followed => ({
      jobId: job,
      appId,
      tag: `sidecar-id:${job}`,
    });

    it('reads only what changed, takes the other followed apps as last read, and all of them every followedEvery cycles', async () => {
      // Both started a minute before the newest app: outside the window of the reads of new apps.
      const waiting = app('application_1_0001', T - 60_000, tagsOf('dl-a'), 'ACCEPTED');
      const running = app('application_1_0002', T - 59_000, tagsOf('dl-b'), 'RUNNING');
      const newest = app('application_1_0003', T, ['team:z'], 'RUNNING');
      const apps = [...others, waiting, running, newest];
      const { rm, calls } = rmOf(apps);
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 3, now: () => T + 10_000 });
      const followed = [follow('dl-a', waiting.id), follow('dl-b', running.id)];
      await reader.read(followed); // the first: a full read
      calls.splice(0);
      const second = await reader.read(followed);
      expect(second.full).toBe(false);
      // The new apps, the ended ones, and whether the waiting one runs now (the RM tests the
      // state before the tags): no read of every followed app.
      expect(calls).toEqual(['new', 'ended', 'RUNNING tags 1']);
      expect(second.apps.map((a) => `${a.id} ${a.state}`).sort()).toEqual([
        'application_1_0001 ACCEPTED',
        'application_1_0002 RUNNING',
        'application_1_0003 RUNNING',
      ]);
      // The running one ends; the waiting one runs, with another priority.
      apps[apps.indexOf(waiting)] = { ...waiting, state: 'RUNNING', priority: 7 };
      apps[apps.indexOf(running)] = { ...running, state: 'FINISHED', finishedTime: T + 9_000 };
      calls.splice(0);
      const third = await reader.read(followed);
      expect(calls).toEqual(['new', 'ended', 'RUNNING tags 1']);
      // Both seen at once.
      expect(third.apps.map((a) => `${a.id} ${a.state}`).sort()).toEqual([
        'application_1_0001 RUNNING',
        'application_1_0002 FINISHED',
        'application_1_0003 RUNNING',
      ]);
      // Someone else sets the running one's priority: seen at the next read of every followed app.
      apps[apps.findIndex((a) => a.id === waiting.id)] = { ...waiting, state: 'RUNNING', priority: 9 };
      calls.splice(0);
      const fourth = await reader.read(followed); // the third cycle since the full read
      // The live followed apps by tag, then the one that ended by its tag alone.
      expect(calls).toEqual(['new', `${LIVE_TAGS} 2`, 'tags 1']);
      expect(fourth.apps.find((a) => a.id === waiting.id)).toMatchObject({ state: 'RUNNING', priority: 9 });
      expect(fourth.apps.find((a) => a.id === running.id)).toMatchObject({ state: 'FINISHED' });
      calls.splice(0);
      // Nothing waits any more: no read by tag at all.
      await reader.read(followed);
      expect(calls).toEqual(['new', 'ended']);
    });

    it('watches a followed app last seen before ACCEPTED for any later state: the RM may reject it uncounted', async () => {
      const fresh = app('application_1_0011', T, tagsOf('dl-k'), 'SUBMITTED');
      const apps = [...others, fresh];
      const { rm, calls } = rmOf(apps);
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 100, now: () => T });
      const followed = [follow('dl-k', fresh.id)];
      await reader.read(followed, { submitted: 51, ended: 0 });
      // Rejected by the scheduler (no such queue): FAILED, and neither count moved.
      apps[apps.indexOf(fresh)] = { ...fresh, state: 'FAILED', finishedTime: T + 1_000 };
      calls.splice(0);
      const read = await reader.read(followed, { submitted: 51, ended: 0 });
      expect(calls).toEqual(['ACCEPTED,RUNNING,FINISHED,FAILED,KILLED tags 1']);
      expect(read.apps.find((a) => a.id === fresh.id)).toMatchObject({ state: 'FAILED' });
    });

    it("reads new apps only when the RM's count of submitted apps moved, ended ones when its count of ended apps did", async () => {
      const ours = app('application_1_0006', T, tagsOf('dl-f'), 'RUNNING');
      const apps = [...others, ours];
      const { rm, calls } = rmOf(apps);
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 100, now: () => T });
      const followed = [follow('dl-f', ours.id)];
      await reader.read(followed, { submitted: 51, ended: 0 });
      calls.splice(0);
      // Nothing moved: no read of apps at all, and the followed app as last read.
      const quiet = await reader.read(followed, { submitted: 51, ended: 0 });
      expect(calls).toEqual([]);
      expect(quiet.apps.map((a) => a.id)).toEqual([ours.id]);
      const other = app('application_1_0007', T + 2_000, ['team:x'], 'ACCEPTED');
      apps.push(other);
      const fresh = await reader.read(followed, { submitted: 52, ended: 0 });
      expect(calls).toEqual(['new']);
      expect(fresh.apps.map((a) => a.id)).toContain(other.id);
      calls.splice(0);
      apps[apps.indexOf(ours)] = { ...ours, state: 'KILLED', finishedTime: T + 3_000 };
      const ended = await reader.read(followed, { submitted: 52, ended: 1 });
      expect(calls).toEqual(['ended']);
      expect(ended.apps.find((a) => a.id === ours.id)!.state).toBe('KILLED');
      calls.splice(0);
      await reader.read(followed, { submitted: 52, ended: 1 });
      expect(calls).toEqual([]);
    });

    it('starts the read of new apps at the RM clock last seen, so that a burst is not read again and again', async () => {
      // 40 apps started within a second, then nothing: the RM says its clock through the elapsed
      // time of a live app (its start plus elapsed is the RM's now when it answered).
      const burst = Array.from({ length: 40 }, (_, i) =>
        app(`application_1_${2000 + i}`, T + i * 25, ['team:y'], 'KILLED'),
      );
      const ours = { ...app('application_1_0009', T - 60_000, tagsOf('dl-g'), 'RUNNING'), elapsedTime: 0 };
      const apps: AppReport[] = [...burst, ours];
      const begins: number[] = [];
      const { rm } = rmOf(apps);
      const inner = rm.apps.bind(rm);
      rm.apps = async (x: AppQuery = {}) => {
        if (x.startedTimeBegin !== undefined) begins.push(x.startedTimeBegin);
        return inner(x);
      };
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 2, now: () => T });
      const followed = [follow('dl-g', ours.id)];
      await reader.read(followed); // full: the live apps (the burst ended: not among them)
      expect(begins).toEqual([]);
      const first = await reader.read(followed); // changes: new apps from the newest start less 15 s
      expect(first.apps.filter((a) => a.id.startsWith('application_1_2'))).toHaveLength(40);
      // The RM answers 30 s after the burst (the followed app's elapsed time says so).
      apps[apps.length - 1] = { ...ours, elapsedTime: 60_000 + 30_000 };
      await reader.read(followed); // every followed app: the RM's clock learned
      const later = await reader.read(followed);
      // From the followed app's start, then from the burst's newest, then from the RM's clock.
      expect(begins).toEqual([T - 60_000 - 15_000, T + 39 * 25 - 15_000, T + 30_000 - 15_000]);
      expect(later.apps.filter((a) => a.id.startsWith('application_1_2'))).toEqual([]);
    });

    it('reads a followed app it never saw by its tag, then takes it as read', async () => {
      const old = app('application_1_0003', T - 7_200_000, tagsOf('dl-c'), 'RUNNING');
      const { rm, calls } = rmOf([...others, old]);
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 10, now: () => T });
      await reader.read([]);
      calls.splice(0);
      // A job followed from now on (a discovered one, say) whose app started long ago.
      const got = await reader.read([follow('dl-c', old.id)]);
      expect(calls).toEqual(['new', 'ended', 'tags 1']);
      // Beside the other users' apps the read of new apps brings (started within the overlap).
      expect(got.apps.map((a) => a.id)).toContain(old.id);
      calls.splice(0);
      await reader.read([follow('dl-c', old.id)]);
      expect(calls).toEqual(['new', 'ended']);
    });

    it('starts the read of ended apps a minute back on a quiet cluster, not at the last start seen', async () => {
      const long = app('application_1_0004', T - 7_200_000, tagsOf('dl-d'), 'RUNNING');
      const q: Array<number | undefined> = [];
      const { rm } = rmOf([long]);
      const apps = rm.apps.bind(rm);
      rm.apps = async (x: AppQuery = {}) => {
        if (x.finishedTimeBegin !== undefined) q.push(x.finishedTimeBegin);
        return apps(x);
      };
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 10, now: () => T });
      await reader.read([follow('dl-d', long.id)]);
      await reader.read([follow('dl-d', long.id)]);
      expect(q).toEqual([T - 60_000 - 15_000]);
    });

    it('reads every app when the RM ignores finishedTimeBegin', async () => {
      const ours = app('application_1_0005', T, tagsOf('dl-e'), 'RUNNING');
      const { rm, calls } = rmOf([...others, ours]);
      const apps = rm.apps.bind(rm);
      // An RM that answers every app to a read of ended ones.
      rm.apps = async (x: AppQuery = {}) =>
        apps(x.finishedTimeBegin === undefined ? x : { ...x, finishedTimeBegin: undefined });
      const reader = new AppReader({ rm, log, fullEvery: 100, followedEvery: 10, now: () => T });
      await reader.read([follow('dl-e', ours.id)]);
      calls.splice(0);
      const got = await reader.read([follow('dl-e', ours.id)]);
      expect(got.full).toBe(true);
      expect(got.apps).toHaveLength(51);
      expect(warnings).toEqual(['the RM ignores a filter of GET /apps; every app is read instead']);
    });
  });

  it('reads 500 followed apps in one read by tag', async () => {
    const { ours, followed } = followedApps(500);
    const { rm, calls } = rmOf([...others, ...ours]);
    const reader = new AppReader({ rm, log, fullEvery: 60 });
    await reader.read(followed);
    calls.splice(0);
    const read = await reader.read(followed);
    expect(read.apps.map((a) => a.id).sort()).toEqual(ours.map((a) => a.id));
    expect(calls).toEqual(['new', `${LIVE_TAGS} 500`]);
  });

  it.each([414, 431])(
    'after a %d, halves the tags per read until the RM takes them, in the same cycle and from then on',
    async (status) => {
      // 300 tags of 30 characters: 9,299 characters; the RM takes at most 5,000 of them.
      const { ours, followed } = followedApps(300);
      const { rm, sizes } = shortUrlRm([...others, ...ours], 5_000, status);
      const reader = new AppReader({ rm, log, fullEvery: 60 });
      // The full read: the live apps, the followed ones among them, no read by tag.
      const full = await reader.read(followed);
      expect(full.apps.map((a) => a.id).sort()).toEqual([...others, ...ours].map((a) => a.id).sort());
      expect(sizes).toEqual([]);
      const first = await reader.read(followed);
      expect(first.apps.map((a) => a.id).sort()).toEqual(ours.map((a) => a.id));
      // 16,000 (one read, refused), 8,000 (two reads, the first refused), 4,000: three reads.
      expect(sizes.map((c) => Math.ceil(c / 1000))).toEqual([10, 8, 4, 4, 2]);
      expect(warnings).toEqual([
        'the RM refused a read of apps by tag as too long; reads ask for fewer tags',
        'the RM refused a read of apps by tag as too long; reads ask for fewer tags',
      ]);
      sizes.splice(0);
      const second = await reader.read(followed);
      expect(second.apps.map((a) => a.id).sort()).toEqual(ours.map((a) => a.id));
      expect(sizes.every((c) => c <= 4_000)).toBe(true);
      expect(sizes).toHaveLength(3);
      expect(warnings).toHaveLength(2);
    },
  );

  it('fails the read when even the fewest tags per read are refused', async () => {
    const { ours, followed } = followedApps(100);
    const { rm } = shortUrlRm([...others, ...ours], 200);
    const reader = new AppReader({ rm, log, fullEvery: 60 });
    await reader.read(followed); // the full read: no read by tag
    await expect(reader.read(followed)).rejects.toMatchObject({ status: 414 });
    // 16,000 -> 8,000 -> 4,000 -> 2,000 -> 1,000, refused at each.
    expect(warnings).toHaveLength(4);
  });
});

describe('followedOf and tagChunks', () => {
  it('follows an API job by its sidecar-id tag and a discovered one by its deadline tag', () => {
    const job = (o: Partial<JobRecord>) =>
      ({ id: 'dl-x', appId: null, source: 'api', spec: {}, ...o }) as JobRecord;
    expect(followedOf(job({})).tag).toBe('sidecar-id:dl-x');
    expect(
      followedOf(
        job({ source: 'discovered', spec: { tags: ['maps:2', 'deadline:2030-01-01t00:00:00.000z'] } }),
      ).tag,
    ).toBe('deadline:2030-01-01t00:00:00.000z');
    // No tag to read it by: its app is read from its own endpoint.
    expect(followedOf(job({ source: 'discovered', spec: { tags: ['maps:2'] } })).tag).toBeUndefined();
  });

  it('keeps each read within the characters given', () => {
    const tags = Array.from({ length: 100 }, (_, i) => `sidecar-id:dl-${String(i).padStart(12, '0')}`);
    const chunks = tagChunks(tags, 300);
    expect(chunks.flat()).toEqual(tags);
    for (const c of chunks) expect(c.join(',').length).toBeLessThanOrEqual(300);
  });
});
