import { parseSubmission } from '../../src/api/submission';
import { ValidationError } from '../../src/errors/validation';

const NOW = Date.parse('2026-11-22T08:00:00Z');
const base = { name: 'r', user: 'alice', deadline: 600, maps: 2, reduces: 1 };

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
