import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../src/config/load';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY, SyntheticHistory } from '../../src/emulator/synthetic-history';
import { replayFromCluster } from '../../src/replay';
import { FileHistoryCache, serverFolder, type JobDetail } from '../../src/replay/history-cache';
import { writeReplay } from '../../src/replay/output';
import { parseDeadlineRules } from '../../src/replay/workload';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';

/**
 * The history cache (src/replay/history-cache.ts): a replay interrupted mid-read and run again
 * reads only the jobs it had not read and writes the same files as one never interrupted; a
 * cache of another server is not used; a corrupt file is set aside with a warning and its jobs
 * read again; a line cut short by a crash is dropped.
 */
const NOW = Date.UTC(2026, 0, 2);
const history = {
  ...DEFAULT_SYNTHETIC_HISTORY,
  jobs: 60,
  startMs: NOW - 30 * 3_600_000,
  meanGapSeconds: 1500,
};
const otherHistory = { ...history, seed: 2 };
const succeededOf = (o: typeof history) => {
  const h = new SyntheticHistory(o);
  return Array.from({ length: o.jobs }, (_, i) => h.job(i)).filter((j) => j.state === 'SUCCEEDED').length;
};
const succeeded = succeededOf(history);

let emu: RunningEmulator;
/** The same ids and windows, another history (another seed): what a cache must not be mistaken for. */
let other: RunningEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ history });
  other = await startEmulator({ history: otherHistory });
  dir = mkdtempSync(join(tmpdir(), 'yss-replay-cache-'));
});
afterAll(async () => {
  await emu.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A JobHistory client counting its task-list requests, failing past `failAfter` of them. */
function counting(url: string, failAfter = Infinity) {
  const real = JobHistoryClient.forHistoryServer({ urls: [url], timeoutMs: 10_000 });
  const calls = { tasks: 0 };
  const client = Object.create(real) as JobHistoryClient;
  client.tasks = (id, type) => {
    if (++calls.tasks > failAfter) return Promise.reject(new Error('interrupted (a stand-in for Ctrl-C)'));
    return real.tasks(id, type);
  };
  return { client, calls };
}

/** A cache under `name` filled by one replay of the emulator's window, then closed: its folder. */
async function filledCache(name: string): Promise<string> {
  const cacheDir = join(dir, name);
  const cache = new FileHistoryCache(cacheDir, emu.jhsUrl);
  await replayTo(emu, join(dir, `${name}-a`), counting(emu.jhsUrl).client, cache);
  cache.close();
  return cacheDir;
}

/** Replays the emulator's window with `cache` and writes the files to `out`; answers the files' text. */
async function replayTo(
  server: RunningEmulator,
  out: string,
  jhs: JobHistoryClient,
  cache?: FileHistoryCache,
): Promise<Record<string, string>> {
  const run = await replayFromCluster({
    jhs,
    rm: new HttpResourceManagerClient({ urls: [server.url], timeoutMs: 10_000 }),
    config: buildConfig({}),
    rules: parseDeadlineRules(['slack=1.5x']),
    fromMs: NOW - 31 * 3_600_000,
    toMs: NOW,
    ...(cache ? { cache } : {}),
  });
  const files = await writeReplay(out, run.result, run.history.jobs, { png: false });
  const text: Record<string, string> = {};
  for (const f of files) text[f] = readFileSync(join(out, f), 'utf8');
  // What depends on the run itself, not on the history: its wall times, its memory, its requests.
  const report = JSON.parse(text['replay.json']!) as Record<string, unknown>;
  expect(report.requests).toBe(run.history.requests);
  delete report.wallMs;
  delete report.memory;
  delete report.requests;
  text['replay.json'] = JSON.stringify(report);
  return text;
}

describe('the history cache', () => {
  let whole: Record<string, string>;
  beforeAll(async () => {
    whole = await replayTo(emu, join(dir, 'whole'), counting(emu.jhsUrl).client);
  });

  it('a run interrupted mid-read, run again, reads only what it had not and writes the same files', async () => {
    const cacheDir = join(dir, 'resumed-cache');
    const first = counting(emu.jhsUrl, 20);
    const interrupted = new FileHistoryCache(cacheDir, emu.jhsUrl);
    await expect(replayTo(emu, join(dir, 'interrupted'), first.client, interrupted)).rejects.toThrow(
      /interrupted/,
    );
    interrupted.close();
    // Every job whose tasks were read before the interruption was kept, its counters read too.
    const kept = interrupted.stats.stored;
    expect(kept).toBe(20);

    const again = counting(emu.jhsUrl);
    const cache = new FileHistoryCache(cacheDir, emu.jhsUrl);
    const resumed = await replayTo(emu, join(dir, 'resumed'), again.client, cache);
    cache.close();
    expect(cache.stats.hits).toBe(kept);
    expect(again.calls.tasks).toBe(succeeded - kept);
    expect(Object.keys(resumed).sort()).toEqual(Object.keys(whole).sort());
    for (const f of Object.keys(whole)) expect({ f, text: resumed[f] }).toEqual({ f, text: whole[f] });

    // A third run reads no job's details at all.
    const third = counting(emu.jhsUrl);
    const full = new FileHistoryCache(cacheDir, emu.jhsUrl);
    expect(await replayTo(emu, join(dir, 'third'), third.client, full)).toEqual(whole);
    full.close();
    expect(third.calls.tasks).toBe(0);
    expect(full.stats.hits).toBe(succeeded);
  });

  it('a cache of another server is not used', async () => {
    const cacheDir = await filledCache('two-servers');
    // The other server lists the same job ids over the same window, with other tasks.
    const alone = await replayTo(other, join(dir, 'b-alone'), counting(other.jhsUrl).client);
    expect(alone['jobs.csv']).not.toEqual(whole['jobs.csv']);
    const b = counting(other.jhsUrl);
    const cache = new FileHistoryCache(cacheDir, other.jhsUrl);
    expect(await replayTo(other, join(dir, 'b'), b.client, cache)).toEqual(alone);
    cache.close();
    expect(cache.stats.hits).toBe(0);
    expect(b.calls.tasks).toBe(succeededOf(otherHistory));
    expect(readdirSync(cacheDir).sort()).toEqual(
      [serverFolder(emu.jhsUrl), serverFolder(other.jhsUrl)].sort(),
    );
  });

  it('a file written for another server, copied into this one\u2019s folder, is set aside with a warning', async () => {
    const cacheDir = await filledCache('copied');
    const from = join(cacheDir, serverFolder(emu.jhsUrl));
    const to = join(cacheDir, serverFolder(other.jhsUrl));
    const day = readdirSync(from)[0]!;
    const warnings: string[] = [];
    const b = new FileHistoryCache(cacheDir, other.jhsUrl, (t) => warnings.push(t));
    writeFileSync(join(to, day), readFileSync(join(from, day)));
    const alone = await replayTo(other, join(dir, 'copied-alone'), counting(other.jhsUrl).client);
    expect(await replayTo(other, join(dir, 'copied-b'), counting(other.jhsUrl).client, b)).toEqual(alone);
    b.close();
    expect(b.stats.hits).toBe(0);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`${day} set aside .*written for another server`)),
    ]);
    expect(existsSync(join(to, `${day}.corrupt`))).toBe(true);
  });

  it('a corrupt file is set aside with a warning naming its line, and its jobs read again', async () => {
    const cacheDir = await filledCache('corrupt');
    const folder = join(cacheDir, serverFolder(emu.jhsUrl));
    const days = readdirSync(folder).sort();
    expect(days.length).toBe(2);
    const path = join(folder, days[0]!);
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = '{"id":"job_1600000000000_0002","b":1,"m":["x"';
    writeFileSync(path, lines.join('\n'));
    const warnings: string[] = [];
    const again = counting(emu.jhsUrl);
    const cache = new FileHistoryCache(cacheDir, emu.jhsUrl, (t) => warnings.push(t));
    expect(await replayTo(emu, join(dir, 'corrupt-b'), again.client, cache)).toEqual(whole);
    cache.close();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `${days[0]} set aside as ${days[0]}.corrupt \\(line 3: not JSON\\); its jobs are read again`,
        ),
      ),
    ]);
    // The file's jobs (its lines but the header and the last, empty one) are read again.
    expect(again.calls.tasks).toBe(lines.length - 2);
    expect(cache.stats.hits).toBe(succeeded - again.calls.tasks);
    expect(existsSync(`${path}.corrupt`)).toBe(true);
  });

  it('a last line cut short (a crash while writing it) is dropped without a warning', async () => {
    const cacheDir = await filledCache('cut');
    const folder = join(cacheDir, serverFolder(emu.jhsUrl));
    const path = join(folder, readdirSync(folder).sort().at(-1)!);
    const text = readFileSync(path, 'utf8').trimEnd().split('\n');
    writeFileSync(path, `${text.slice(0, -1).join('\n')}\n${text.at(-1)!.slice(0, 30)}`);
    const warnings: string[] = [];
    const again = counting(emu.jhsUrl);
    const cache = new FileHistoryCache(cacheDir, emu.jhsUrl, (t) => warnings.push(t));
    expect(await replayTo(emu, join(dir, 'cut-b'), again.client, cache)).toEqual(whole);
    cache.close();
    expect(warnings).toEqual([]);
    expect(again.calls.tasks).toBe(1);
    // The cut line was taken off the file and the job appended whole: a third run reads nothing.
    const third = counting(emu.jhsUrl);
    const full = new FileHistoryCache(cacheDir, emu.jhsUrl, (t) => warnings.push(t));
    expect(await replayTo(emu, join(dir, 'cut-c'), third.client, full)).toEqual(whole);
    full.close();
    expect(warnings).toEqual([]);
    expect(third.calls.tasks).toBe(0);
  });
});

describe('FileHistoryCache', () => {
  const detail: JobDetail = {
    maps: [NOW + 5000, NOW + 9000, NOW + 5100, NOW + 12_000],
    reduces: [NOW + 12_500, NOW + 20_000],
    inputBytes: 1e9,
    shuffleBytes: 3e8,
    mapBytes: [5e8, 5e8],
  };

  it('gives back what was put, relative times and all, and each reason a job has none', () => {
    const root = join(dir, 'unit');
    const c = new FileHistoryCache(root, 'http://jhs:19888/');
    c.put('job_1_0001', NOW, detail);
    c.put('job_1_0002', NOW, 'history-deleted');
    c.put('job_1_0003', NOW + 86_400_000, 'no-tasks');
    c.close();
    // The same server without its trailing slash: the same folder.
    const again = new FileHistoryCache(root, 'http://jhs:19888');
    expect(again.get('job_1_0001', NOW, true)).toEqual(detail);
    expect(again.get('job_1_0002', NOW, false)).toBe('history-deleted');
    expect(again.get('job_1_0003', NOW + 86_400_000, false)).toBe('no-tasks');
    expect(again.get('job_1_0004', NOW, false)).toBeUndefined();
    again.close();
  });

  it('a job kept without each map\u2019s bytes is read again for --task-counters; one kept with them serves a run without', () => {
    const root = join(dir, 'unit-counters');
    const c = new FileHistoryCache(root, 'http://jhs:19888');
    c.put('job_1_0001', NOW, { ...detail, mapBytes: null });
    c.put('job_1_0002', NOW, detail);
    expect(c.get('job_1_0001', NOW, true)).toBeUndefined();
    expect(c.get('job_1_0002', NOW, false)).toEqual({ ...detail, mapBytes: null });
    expect(c.get('job_1_0002', NOW, true)).toEqual(detail);
    c.close();
  });

  it('a line of the right JSON but not a job is corrupt', () => {
    const root = join(dir, 'unit-shape');
    const c = new FileHistoryCache(root, 'http://jhs:19888');
    c.put('job_1_0001', NOW, detail);
    c.close();
    const path = join(root, serverFolder('http://jhs:19888'), '2026-01-02.jsonl');
    appendFileSync(path, '{"id":"job_1_0002","b":1,"m":[1,2,3],"r":[],"in":0,"sh":null,"mb":null}\n');
    const warnings: string[] = [];
    const again = new FileHistoryCache(root, 'http://jhs:19888', (t) => warnings.push(t));
    expect(again.get('job_1_0001', NOW, false)).toBeUndefined();
    again.close();
    expect(warnings[0]).toMatch(/line 3: job job_1_0002: its task times are not pairs of numbers/);
  });
});
