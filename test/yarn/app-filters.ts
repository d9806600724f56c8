/**
 * The filters of `GET /ws/v1/cluster/apps` the sidecar's poll relies on (src/loop/app-reads.ts),
 * as a real RM applies them (ClientRMService.getApplications behind ApplicationsRequestBuilder):
 *
 * - `applicationTags`: any of the tags given, each lower-cased and matched exactly (no prefix);
 * - `states`: any of the states, case-insensitive; an unknown one is a 400;
 * - `startedTimeBegin` / `finishedTimeBegin`: inclusive bounds in epoch ms on the app's start and
 *   finish times (an app still running has finishedTime 0, so any finishedTimeBegin above 0 leaves
 *   it out); a negative or non-numeric bound is a 400;
 * - `limit`: at most that many apps of those matching; 0 or less is a 400;
 * - `deSelects`: the members named (case-insensitive) are left out of each app; a name the RM
 *   does not know is a 400 "Invalid deSelects string X".
 *
 * Run against the emulator (test/emulator) and the real RM (test/hadoop): the expectations are
 * computed from the suite's own apps as the server reports them unfiltered, so they hold on any
 * server whatever its clock.
 */
import { RmHttpError } from '../../src/errors/rm-http';
import { RmRemoteError } from '../../src/errors/rm-remote';
import type { AppQuery } from '../../src/yarn/api';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import type { AppReport } from '../../src/yarn/model';
import { amCommand } from '../../src/yarn/submission';
import type { ServerUnderTest } from './conformance';

export interface AppFilterOptions {
  /** Sent as user.name (an RM with simple authentication needs one). */
  user?: string;
  /** Lets the server's time move on between submissions (the emulator's clock is manual). */
  tick?: () => Promise<void> | void;
}

/** A GET /apps answer as JSON: its apps, or the RM's error. */
interface RawBody {
  apps?: { app: Array<Record<string, unknown>> };
  RemoteException?: { exception: string; message: string };
}

const LIVE = ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING'];

export function describeAppFilterConformance(
  name: string,
  start: () => Promise<ServerUnderTest>,
  options: AppFilterOptions = {},
): void {
  describe(`GET /apps filters: ${name}`, () => {
    let server: ServerUnderTest;
    let rm: HttpResourceManagerClient;
    const nonce = `n${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const run = `yss-run:${nonce}`;
    const ids: Record<'alpha' | 'beta' | 'gamma', string> = { alpha: '', beta: '', gamma: '' };

    /** The suite's apps, unfiltered but for the run's own tag. */
    const ours = async (): Promise<AppReport[]> => rm.apps({ applicationTags: [run] });
    const idsOf = (apps: readonly AppReport[]) => apps.map((a) => a.id).sort();
    const oursIn = async (q: AppQuery) =>
      idsOf((await rm.apps(q)).filter((a) => Object.values(ids).includes(a.id)));

    beforeAll(async () => {
      server = await start();
      rm = new HttpResourceManagerClient({
        urls: [server.url],
        format: 'json',
        timeoutMs: 10_000,
        maxAttempts: 1,
        ...(options.user === undefined ? {} : { user: options.user }),
      });
      // Tags in mixed case: the RM stores them lower-cased.
      const tags = {
        alpha: [run, `YSS-Filter:Alpha-${nonce}`],
        beta: [run, `yss-filter:beta-${nonce}`],
        gamma: [run],
      };
      for (const key of ['alpha', 'beta', 'gamma'] as const) {
        const { applicationId } = await rm.newApplication();
        await rm.submitApp({
          applicationId,
          name: `filters-${key}`,
          queue: 'default',
          tags: tags[key],
          amResource: { memoryMB: 512, vcores: 1 },
          am: amCommand('sleep 300'),
        });
        ids[key] = applicationId;
        await options.tick?.();
        // Distinct start times on a real RM (milliseconds).
        await new Promise((r) => setTimeout(r, 20));
      }
      // alpha ends (KILLED): the one app of the three with a finish time.
      let kill = await rm.killApp(ids.alpha);
      for (let i = 0; i < 80 && kill.status === 202; i++) {
        await new Promise((r) => setTimeout(r, 250));
        await options.tick?.();
        kill = await rm.killApp(ids.alpha);
      }
      expect(kill.state).toBe('KILLED');
    }, 60_000);
    afterAll(async () => {
      for (const id of [ids.beta, ids.gamma]) if (id) await rm.killApp(id).catch(() => undefined);
      await server.close();
    });

    it('applicationTags: one tag matches its apps only, whatever its case', async () => {
      expect(idsOf(await ours())).toEqual(Object.values(ids).sort());
      const alpha = await rm.apps({ applicationTags: [`YSS-FILTER:ALPHA-${nonce.toUpperCase()}`] });
      expect(idsOf(alpha)).toEqual([ids.alpha]);
      // The tag comes back as the RM stores it: lower-cased.
      expect(alpha[0]!.applicationTags).toContain(`yss-filter:alpha-${nonce}`);
    });

    it('applicationTags: several tags are any-of, and a tag matches exactly (no prefix)', async () => {
      const both = await rm.apps({
        applicationTags: [`yss-filter:alpha-${nonce}`, `yss-filter:beta-${nonce}`],
      });
      expect(idsOf(both)).toEqual([ids.alpha, ids.beta].sort());
      expect(await rm.apps({ applicationTags: [`yss-filter:alpha-${nonce}`.slice(0, -1)] })).toEqual([]);
      expect(await rm.apps({ applicationTags: ['yss-filter'] })).toEqual([]);
    });

    it('applicationTags: a read by 1,500 tags (a URL of about 50 KB) is served', async () => {
      // What the poll sends for hundreds of followed apps at once (TAG_CHARS_PER_READ, app-reads.ts).
      const filler = Array.from({ length: 1_499 }, (_, i) => `sidecar-id:filler-${nonce}-${i}`);
      const tags = [...filler.slice(0, 700), `yss-filter:beta-${nonce}`, ...filler.slice(700)];
      expect(tags.join(',').length).toBeGreaterThan(45_000);
      expect(idsOf(await rm.apps({ applicationTags: tags }))).toEqual([ids.beta]);
    });

    it('a request line past 64 KB is refused with 414 URI Too Long, as Jetty refuses it', async () => {
      const tags = Array.from({ length: 2_000 }, (_, i) => `sidecar-id:filler-${nonce}-${i}`);
      expect(tags.join(',').length).toBeGreaterThan(66_000);
      const err = await rm.apps({ applicationTags: tags }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmHttpError);
      expect(err).toMatchObject({ status: 414, text: expect.stringContaining('URI Too Long') });
      // The connection it closed is not the client's next one.
      expect(idsOf(await ours())).toEqual(Object.values(ids).sort());
    });

    it('states: any of the states given, case-insensitive', async () => {
      expect(await oursIn({ applicationTags: [run], states: ['KILLED'] })).toEqual([ids.alpha]);
      const live = await oursIn({ applicationTags: [run], states: LIVE.map((s) => s.toLowerCase()) });
      expect(live).toEqual([ids.beta, ids.gamma].sort());
      const err = await rm.apps({ states: ['NOT_A_STATE'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmRemoteError);
      expect(err).toMatchObject({ status: 400 });
    });

    it('startedTimeBegin: apps started at or after it, in epoch ms', async () => {
      const all = await ours();
      const started = (id: string) => all.find((a) => a.id === id)!.startedTime;
      expect(started(ids.gamma)).toBeGreaterThan(0);
      for (const begin of [started(ids.beta), started(ids.gamma), started(ids.gamma) + 1]) {
        const want = idsOf(all.filter((a) => a.startedTime >= begin));
        expect(await oursIn({ applicationTags: [run], startedTimeBegin: begin })).toEqual(want);
        // Without the tag filter too: the bound alone.
        expect(await oursIn({ startedTimeBegin: begin })).toEqual(want);
      }
      expect(await oursIn({ applicationTags: [run], startedTimeBegin: started(ids.alpha) })).toEqual(
        idsOf(all),
      );
    });

    it('finishedTimeBegin: ended apps finished at or after it; a live app (finishedTime 0) is left out', async () => {
      const all = await ours();
      const finished = all.find((a) => a.id === ids.alpha)!.finishedTime;
      expect(finished).toBeGreaterThan(0);
      for (const a of all) if (a.id !== ids.alpha) expect(a.finishedTime).toBe(0);
      expect(await oursIn({ applicationTags: [run], finishedTimeBegin: finished })).toEqual([ids.alpha]);
      expect(await oursIn({ applicationTags: [run], finishedTimeBegin: 1 })).toEqual([ids.alpha]);
      expect(await oursIn({ applicationTags: [run], finishedTimeBegin: finished + 1 })).toEqual([]);
    });

    it('limit: at most that many of the matching apps; 0 is refused', async () => {
      const one = await rm.apps({ applicationTags: [run], limit: 1 });
      expect(one).toHaveLength(1);
      expect(Object.values(ids)).toContain(one[0]!.id);
      expect(idsOf(await rm.apps({ applicationTags: [run], limit: 10 }))).toEqual(idsOf(await ours()));
      const err = await rm.apps({ limit: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmRemoteError);
      expect(err).toMatchObject({ status: 400 });
    });

    it('refuses a negative or non-numeric time bound (400)', async () => {
      for (const q of [{ startedTimeBegin: -1 }, { finishedTimeBegin: -5 }]) {
        const err = await rm.apps(q).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RmRemoteError);
        expect(err).toMatchObject({ status: 400 });
      }
      const text = await fetch(
        `${server.url}/ws/v1/cluster/apps?startedTimeBegin=soon${options.user ? `&user.name=${options.user}` : ''}`,
        { headers: { accept: 'application/json' } },
      );
      expect(text.status).toBe(400);
    });

    /** GET /apps with the run's tag and `query`, as the server answers it: status and JSON body. */
    const raw = async (query: string) => {
      const user = options.user ? `&user.name=${options.user}` : '';
      const res = await fetch(
        `${server.url}/ws/v1/cluster/apps?applicationTags=${encodeURIComponent(run)}&${query}${user}`,
        { headers: { accept: 'application/json' } },
      );
      return { status: res.status, body: (await res.json()) as RawBody };
    };

    it('deSelects: the members named (any case) are left out of each app; an unknown one is a 400', async () => {
      const live = (body: RawBody) => body.apps!.app.find((a) => a.id === ids.gamma)!;
      const full = live((await raw('deSelects=resourceRequests')).body);
      // What the poll leaves out is there without deSelects.
      expect(full).toHaveProperty('timeouts');
      expect(full).toHaveProperty('amNodeLabelExpression');
      const slim = await raw('deSelects=resourceRequests,TIMEOUTS&deSelects=resourceInfo');
      expect(slim.status).toBe(200);
      const app = live(slim.body);
      expect(app).not.toHaveProperty('timeouts');
      expect(app).not.toHaveProperty('resourceInfo');
      expect(app).not.toHaveProperty('resourceRequests');
      // The members the sidecar reads stay.
      expect(app).toMatchObject({ id: ids.gamma, state: full.state, applicationTags: full.applicationTags });
      expect(app).toHaveProperty('amNodeLabelExpression');
      const bad = await raw('deSelects=resourceInfo,noSuchMember');
      expect(bad.status).toBe(400);
      expect(bad.body.RemoteException).toMatchObject({ exception: 'BadRequestException' });
      expect(bad.body.RemoteException!.message).toContain('Invalid deSelects string noSuchMember specified');
    });
  });
}
