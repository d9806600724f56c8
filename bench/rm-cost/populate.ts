/**
 * Filling a real RM with apps for bench/rm-cost.bench.ts, over its REST API:
 *
 * - other users' apps: each one an unmanaged-AM app (the RM launches no container for it; it
 *   stays ACCEPTED until an AM registers, which none does), submitted through new-application
 *   and POST /apps; most are killed at once (ended apps, kept by the RM up to
 *   yarn.resourcemanager.max-completed-applications), the rest left ACCEPTED in `besteffort`;
 * - deadline apps: jobs submitted through the sidecar's API with the same unmanaged-AM
 *   submission, admitted, and submitted to the RM by the sidecar's own enforcer (realtime queue,
 *   its tags), so the sidecar follows them as it follows any job of its API.
 */

export interface OtherApps {
  /** Apps to submit. */
  count: number;
  /** One app in this many is left ACCEPTED; the others are killed. */
  liveEvery: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Their names are `other-N` from this N on. */
  firstIndex: number;
}

async function rmCall(
  url: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> | undefined; text: string }> {
  const res = await fetch(url, {
    method,
    headers: {
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** An app's submission context: an unmanaged AM, so the RM starts nothing for it. */
export function unmanagedSubmission(): Record<string, unknown> {
  return {
    'am-container-spec': { commands: { command: 'true' } },
    'unmanaged-AM': true,
    resource: { memory: 512, vCores: 1 },
    'max-app-attempts': 1,
  };
}

/** One other user's app: created, submitted, and killed unless it is to stay live. Its id. */
async function otherApp(rm: string, index: number, live: boolean): Promise<string> {
  const user = `user.name=bench-${index % 7}`;
  const created = await rmCall(`${rm}/ws/v1/cluster/apps/new-application?${user}`, 'POST');
  const id = created.json?.['application-id'];
  if (created.status !== 200 || typeof id !== 'string')
    throw new Error(`new-application: ${created.status} ${created.text.slice(0, 200)}`);
  const submitted = await rmCall(`${rm}/ws/v1/cluster/apps?${user}`, 'POST', {
    ...unmanagedSubmission(),
    'application-id': id,
    'application-name': `other-${index}`,
    'application-type': 'YARN',
    queue: live ? 'besteffort' : 'default',
    'application-tags': { tag: [`bench-batch:${Math.floor(index / 1000)}`] },
  });
  if (submitted.status !== 202)
    throw new Error(`submit ${id}: ${submitted.status} ${submitted.text.slice(0, 200)}`);
  if (!live) {
    const killed = await rmCall(`${rm}/ws/v1/cluster/apps/${id}/state?${user}`, 'PUT', { state: 'KILLED' });
    if (killed.status !== 202 && killed.status !== 200)
      throw new Error(`kill ${id}: ${killed.status} ${killed.text.slice(0, 200)}`);
  }
  return id;
}

/** Submits the other users' apps; resolves once the RM has ended every one killed. */
export async function submitOtherApps(rm: string, o: OtherApps): Promise<{ seconds: number; live: number }> {
  const start = Date.now();
  const before = await appsKilled(rm);
  let next = 0;
  let live = 0;
  const lane = async (): Promise<void> => {
    while (next < o.count) {
      const i = o.firstIndex + next++;
      const isLive = i % o.liveEvery === 0;
      if (isLive) live++;
      await otherApp(rm, i, isLive);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, o.count) }, lane));
  const killed = o.count - live;
  for (let i = 0; (await appsKilled(rm)) < before + killed; i++) {
    if (i > 600) throw new Error(`the RM has not ended ${killed} killed apps after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { seconds: (Date.now() - start) / 1000, live };
}

async function clusterMetric(rm: string, name: string): Promise<number> {
  const m = await rmCall(`${rm}/ws/v1/cluster/metrics`, 'GET');
  const v = (m.json?.clusterMetrics as Record<string, unknown> | undefined)?.[name];
  if (typeof v !== 'number') throw new Error(`no ${name} in the RM's metrics: ${m.text.slice(0, 200)}`);
  return v;
}

/** Apps the RM holds KILLED, by its own statistics (every app type). */
export async function appsKilled(rm: string): Promise<number> {
  const m = await rmCall(`${rm}/ws/v1/cluster/appstatistics?states=killed`, 'GET');
  const items = (m.json?.appStatInfo as { statItem?: unknown } | undefined)?.statItem;
  if (!Array.isArray(items)) throw new Error(`no appstatistics: ${m.text.slice(0, 200)}`);
  return (items as Array<{ count: number }>).reduce((n, s) => n + s.count, 0);
}
export const appsSubmitted = (rm: string): Promise<number> => clusterMetric(rm, 'appsSubmitted');

/** How many apps the RM answers about now (every state), by its own count of each. */
export async function appsKnown(rm: string): Promise<number> {
  const m = await rmCall(`${rm}/ws/v1/cluster/appstatistics`, 'GET');
  const items = (m.json?.appStatInfo as { statItem?: unknown } | undefined)?.statItem;
  if (!Array.isArray(items)) throw new Error(`no appstatistics: ${m.text.slice(0, 200)}`);
  return (items as Array<{ count: number }>).reduce((n, s) => n + s.count, 0);
}

/**
 * `count` deadline jobs through the sidecar's API (each one map of 1 MB, a deadline a day
 * away: every one admitted), each with the unmanaged-AM submission. Their ids; throws when one
 * is not admitted.
 */
export async function submitDeadlineJobs(
  sidecarUrl: string,
  token: string,
  o: { count: number; concurrency: number },
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < o.count) {
      const i = next++;
      const res = await fetch(`${sidecarUrl}/api/v1/jobs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: `deadline-${i}`,
          user: 'alice',
          deadline: 86_400,
          maps: 1,
          reduces: 0,
          inputBytes: 1024 * 1024,
          jobType: 'cpu',
          yarnSubmission: unmanagedSubmission(),
        }),
      });
      const body = (await res.json()) as { id?: string; decision?: string };
      if (res.status !== 201 || body.decision !== 'admitted' || body.id === undefined)
        throw new Error(`deadline job ${i}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      ids.push(body.id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, o.count) }, lane));
  return ids;
}
