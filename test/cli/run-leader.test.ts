/** `run` against HA sidecars: a NOT_LEADER answer is followed to the leader it names, twice at most. */
import { MAX_LEADER_HOPS, RUN_EXIT, runWithTicket, type RunOptions } from '../../src/cli/run';

const notLeader = (leader: string | null) => ({
  status: 503,
  body: {
    error: { code: 'NOT_LEADER', message: leader ? `not leader, try ${leader}` : 'not leader', leader },
  },
});
const rejected = {
  status: 200,
  body: {
    id: 'dl-1',
    decision: 'rejected',
    reason: { message: 'too late' },
    earliestAdmissibleDeadline: null,
  },
};

/** A fetch answering by URL prefix, recording each call's URL and idempotency key. */
function fakeFetch(answers: Record<string, { status: number; body: unknown }>) {
  const calls: Array<{ url: string; key: string | undefined }> = [];
  const f = (async (url: string, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    calls.push({ url, key: headers['idempotency-key'] });
    const base = Object.keys(answers).find((b) => url.startsWith(b))!;
    const a = answers[base]!;
    return new Response(JSON.stringify(a.body), { status: a.status });
  }) as unknown as typeof fetch;
  return { f, calls };
}

const options = (sidecar: string): RunOptions => ({ sidecar, token: 't', deadline: 60, maps: 1, reduces: 0 });

test("a follower's NOT_LEADER is followed to the leader, with the same idempotency key", async () => {
  const { f, calls } = fakeFetch({ 'http://b:8080': notLeader('http://a:8080'), 'http://a:8080': rejected });
  const err: string[] = [];
  const code = await runWithTicket(options('http://b:8080'), ['true'], { err: (t) => err.push(t), fetch: f });
  expect(code).toBe(RUN_EXIT.rejected);
  expect(calls.map((c) => c.url)).toEqual(['http://b:8080/api/v1/jobs', 'http://a:8080/api/v1/jobs']);
  expect(calls[0]!.key).toMatch(/^run-[0-9a-f]{24}$/);
  expect(calls[1]!.key).toBe(calls[0]!.key);
  expect(err[0]).toBe('run: http://b:8080 is not the leader; asking http://a:8080\n');
});

test('two sidecars naming each other are not followed for ever', async () => {
  const { f, calls } = fakeFetch({
    'http://a:8080': notLeader('http://b:8080'),
    'http://b:8080': notLeader('http://a:8080'),
  });
  const err: string[] = [];
  const code = await runWithTicket(options('http://a:8080'), ['true'], { err: (t) => err.push(t), fetch: f });
  expect(code).toBe(RUN_EXIT.unavailable);
  expect(calls).toHaveLength(MAX_LEADER_HOPS + 1);
  expect(err.at(-1)).toContain('the sidecar answered 503 NOT_LEADER');
});

test('NOT_LEADER without a leader known is answered as it is', async () => {
  const { f, calls } = fakeFetch({ 'http://a:8080': notLeader(null) });
  const code = await runWithTicket(options('http://a:8080'), ['true'], { err: () => {}, fetch: f });
  expect(code).toBe(RUN_EXIT.unavailable);
  expect(calls).toHaveLength(1);
});
