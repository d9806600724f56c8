import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Node } from '../../src/yarn/coerce';
import { appReportOf, appReportOfJson, mapApps } from '../../src/yarn/mapping';

/**
 * An app report is read straight from a JSON object when its members have their JSON types
 * (appReportOfJson), else through the Node cursor (appReportOf). For any object the two must
 * agree: the same report, or, where the cursor refuses the object, no report from the fast
 * reader (the cursor then throws its error naming the member).
 */
/** The numeric members: a non-empty string there is a number as text, for the cursor to read. */
const NUMERIC = [
  'progress',
  'priority',
  'startedTime',
  'launchTime',
  'finishedTime',
  'elapsedTime',
  'allocatedMB',
  'allocatedVCores',
  'runningContainers',
];

/** Every member an app report reads: the numeric ones, the text ones and the resource requests. */
const FIELDS = [
  ...NUMERIC,
  'id',
  'name',
  'user',
  'queue',
  'state',
  'finalStatus',
  'applicationType',
  'applicationTags',
  'trackingUI',
  'trackingUrl',
  'diagnostics',
  'amHostHttpAddress',
  'appNodeLabelExpression',
  'amNodeLabelExpression',
  'resourceRequests',
];

const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ' ', '42', ' 7 ', 'NaN', '1e3', 'a, b,,c', 'deadline:2026-11-24t19:48:22z,x'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant({}),
  fc.constant([]),
  fc.constant({ priority: 3 }),
  fc.constant([{ priority: { priority: 1 }, capability: { memory: 1024, vCores: 1 } }]),
);

/** What JSON gives a member of a report: a number for the numeric ones, else a string. */
const typed = (field: string) =>
  NUMERIC.includes(field)
    ? fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }))
    : field === 'resourceRequests'
      ? fc.constantFrom(null, '')
      : fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('', 'a, b,,c', 'deadline:2026-11-24t19:48:22z,x'),
        );

/**
 * An app-like object: each member mostly of its JSON type, sometimes absent, sometimes of any
 * type at all (so that a fair share of the objects are all of their JSON types, and the rest
 * are off by one member or a few).
 */
const appLike = fc
  .tuple(
    ...FIELDS.map((f) =>
      fc
        .oneof(
          { arbitrary: typed(f), weight: 30 },
          { arbitrary: fc.constant(undefined), weight: 3 },
          { arbitrary: value, weight: 1 },
        )
        .map((v) => [f, v] as const),
    ),
    fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 2 }),
  )
  .map((parts) => {
    const extra = parts.pop() as Record<string, unknown>;
    const o: Record<string, unknown> = { ...extra };
    for (const [k, v] of parts as Array<readonly [string, unknown]>) if (v !== undefined) o[k] = v;
    return o;
  });

function slow(o: Record<string, unknown>): { report?: unknown; error?: string } {
  try {
    return { report: appReportOf(Node.root(o as never)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('an app report read straight from JSON', () => {
  it('is the report the cursor reads, for any object; none where the cursor refuses it', () => {
    let read = 0;
    let left = 0;
    fc.assert(
      fc.property(appLike, (o) => {
        const fast = appReportOfJson(o);
        if (fast !== undefined) read++;
        else left++;
        const cursor = slow(o);
        if (fast !== undefined) expect(cursor).toStrictEqual({ report: fast });
        else if (cursor.error === undefined) {
          // Left to the cursor only for another dialect: a number as text, resource requests.
          const asks = o.resourceRequests;
          const numberAsText = NUMERIC.some((f) => typeof o[f] === 'string' && o[f] !== '');
          expect(numberAsText || !(asks === undefined || asks === null || asks === '')).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
    // Both ways were taken, each many times.
    expect(Math.min(read, left)).toBeGreaterThan(200);
  });

  it('reads the RM documentation sample and the RM 2.7 answer the fast way, as the cursor does', () => {
    for (const file of [
      'yarn-rm-api/samples/cluster-apps.response.json',
      'ours/cluster-apps.response-hadoop-2.7.json',
    ]) {
      const body = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', file), 'utf8')) as {
        apps: { app: Array<Record<string, unknown>> };
      };
      // As the sidecar reads apps: deSelects=resourceRequests,timeouts,resourceInfo.
      const apps = body.apps.app.map(({ resourceRequests, timeouts, resourceInfo, ...rest }) => {
        void [resourceRequests, timeouts, resourceInfo];
        return rest;
      });
      for (const app of apps) {
        const fast = appReportOfJson(app);
        expect(fast).toBeDefined();
        expect(fast).toStrictEqual(appReportOf(Node.root(app as never)));
      }
      expect(mapApps({ apps: { app: apps } } as never)).toStrictEqual(
        apps.map((a) => appReportOf(Node.root(a as never))),
      );
    }
  });

  it('leaves numbers written as text (XML) and resource requests to the cursor', () => {
    const app = { id: 'application_1_0001', state: 'RUNNING', startedTime: '1700000000000' };
    expect(appReportOfJson(app)).toBeUndefined();
    expect(appReportOf(Node.root(app as never)).startedTime).toBe(1_700_000_000_000);
    const withAsks = { id: 'application_1_0002', state: 'RUNNING', resourceRequests: [] };
    expect(appReportOfJson(withAsks)).toBeUndefined();
    expect(appReportOfJson({ id: 'application_1_0003', state: 'RUNNING' })?.resourceRequests).toEqual([]);
  });
});
