import { parseSubmission } from '../../src/model/deadline-submission';
import { ValidationError } from '../../src/errors/validation';
import { SLEEP_AM } from '../yarn-submission';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const base = { name: 'r', user: 'alice', yarnSubmission: SLEEP_AM, deadline: 600, maps: 2, reduces: 1 };

function issues(body: Record<string, unknown>): string[] {
  try {
    parseSubmission(body, NOW);
  } catch (err) {
    return (err as ValidationError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

describe('inputBytes and inputPaths in a submission', () => {
  it('inputBytes may be left out when input paths are given (their lengths are read then)', () => {
    const s = parseSubmission({ ...base, inputPaths: ['/data/in'] }, NOW);
    expect(s.inputBytes).toBeUndefined();
    expect(s.inputPaths).toEqual(['/data/in']);
  });

  it('inputBytes is required without input paths, also with an empty list', () => {
    const msg =
      'inputBytes: is required unless inputPaths are given (their lengths are then read from WebHDFS)';
    expect(issues(base)).toEqual([msg]);
    expect(issues({ ...base, inputPaths: [] })).toEqual([msg]);
  });

  it('splitBytes needs inputBytes beside it', () => {
    expect(issues({ ...base, inputPaths: ['/d'], splitBytes: [1, 2] })).toEqual([
      'splitBytes: needs inputBytes beside it',
    ]);
    expect(issues({ ...base, inputBytes: 3, inputPaths: ['/d'], splitBytes: [1, 2] })).toEqual([]);
  });

  it('input paths must be absolute', () => {
    expect(issues({ ...base, inputBytes: 1, inputPaths: ['data/in'] })).toEqual([
      'inputPaths.0: must be an absolute HDFS path',
    ]);
  });
});

describe("a submission's own tags, within YARN's limits", () => {
  const ok = { ...base, inputBytes: 1 };
  it('takes up to four tags, three with a workloadClass (YARN allows 10 and the sidecar writes 6 or 7)', () => {
    expect(issues({ ...ok, tags: ['a', 'b', 'c', 'd'] })).toEqual([]);
    expect(issues({ ...ok, tags: ['a', 'b', 'c', 'd', 'e'] })).toEqual([
      'tags: has 5 tags; YARN allows 10 per app and the sidecar writes 6 of its own, so at most 4 may be given',
    ]);
    expect(issues({ ...ok, workloadClass: 'etl', tags: ['a', 'b', 'c', 'd'] })).toEqual([
      'tags: has 4 tags; YARN allows 10 per app and the sidecar writes 7 of its own (with workloadClass), so at most 3 may be given',
    ]);
    // Compared as YARN stores them: lower-cased, as a set.
    expect(issues({ ...ok, tags: ['a', 'A', 'b', 'c', 'd'] })).toEqual([]);
  });

  it('refuses a tag over 100 characters or with characters outside printable ASCII', () => {
    expect(issues({ ...ok, tags: ['x'.repeat(101)] })).toEqual([
      "tags.0: may be at most 100 characters (YARN's limit)",
    ]);
    expect(issues({ ...ok, tags: ['x'.repeat(100)] })).toEqual([]);
    expect(issues({ ...ok, tags: ['team:\u00e9t\u00e9'] })).toEqual([
      'tags.0: may hold printable ASCII characters only (YARN refuses others)',
    ]);
  });
});
