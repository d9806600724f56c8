/**
 * The `input:PATH` tags: one per input path on a submission, so the RM side can tell what an
 * app reads; read back lower-cased as YARN stores tags.
 */
import {
  decodeTags,
  encodeTags,
  inputTags,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  submissionTags,
  userTagBudget,
} from '../../src/yarn/tags';

const base = {
  sidecarId: 'dl-1',
  deadlineMs: Date.UTC(2026, 10, 22, 9),
  maps: 4,
  reduces: 1,
  inputBytes: 1024,
  jobType: 'cpu' as const,
};

describe('input tags', () => {
  it('adds one input:PATH tag per path, none without paths', () => {
    const tags = encodeTags({ ...base, inputPaths: ['/data/Events', '/data/more'] });
    expect(tags.filter((t) => t.startsWith('input:'))).toEqual(['input:/data/Events', 'input:/data/more']);
    expect(encodeTags(base).some((t) => t.startsWith('input:'))).toBe(false);
  });

  it('reads them back, as YARN returns them lower-cased', () => {
    const tags = encodeTags({ ...base, inputPaths: ['/data/Events', '/x'] }).map((t) => t.toLowerCase());
    expect(decodeTags(tags).inputPaths).toEqual(['/data/events', '/x']);
    expect(decodeTags(['input:', 'maps:2']).inputPaths).toBeUndefined();
  });

  it('leaves out a path whose tag YARN would refuse as too long, and a repeated one', () => {
    const long = `/${'a'.repeat(MAX_TAG_LENGTH)}`;
    const edge = `/${'b'.repeat(MAX_TAG_LENGTH - 'input:/'.length)}`;
    expect(inputTags([long, edge, '/c', '/c'])).toEqual([`input:${edge}`, 'input:/c']);
    expect(`input:${edge}`).toHaveLength(MAX_TAG_LENGTH);
  });
});

describe("YARN's limit of 10 tags per app", () => {
  it('the sidecar writes six of its own, seven with a class: the user may add four, or three', () => {
    expect(encodeTags(base)).toHaveLength(6);
    expect(encodeTags({ ...base, workloadClass: 'etl' })).toHaveLength(7);
    expect([userTagBudget(false), userTagBudget(true)]).toEqual([4, 3]);
  });

  it("input tags fill only the room left after the sidecar's and the user's, in path order", () => {
    const paths = ['/a', '/b', '/c', '/d', '/e'];
    const tags = submissionTags({ ...base, inputPaths: paths }, ['team:bi', 'cost:7']);
    expect(tags).toHaveLength(MAX_TAGS);
    expect(tags.slice(6)).toEqual(['team:bi', 'cost:7', 'input:/a', 'input:/b']);
    // With a class and three user tags nothing is left for inputs.
    const full = submissionTags({ ...base, workloadClass: 'etl', inputPaths: paths }, ['u1', 'u2', 'u3']);
    expect(full).toHaveLength(MAX_TAGS);
    expect(full.some((t) => t.startsWith('input:'))).toBe(false);
    // Without inputs the user's tags follow the sidecar's unchanged.
    expect(submissionTags(base, ['x'])).toEqual([...encodeTags(base), 'x']);
  });

  it('a user tag equal to one the sidecar writes, in any case, is sent once', () => {
    const tags = submissionTags({ ...base, inputPaths: ['/a', '/b', '/c', '/d', '/e'] }, [
      'MAPS:4',
      'input:/a',
    ]);
    expect(new Set(tags.map((t) => t.toLowerCase())).size).toBe(tags.length);
    expect(tags).not.toContain('MAPS:4');
    expect(tags).toHaveLength(MAX_TAGS);
    expect(tags.filter((t) => t.startsWith('input:'))).toEqual([
      'input:/a',
      'input:/b',
      'input:/c',
      'input:/d',
    ]);
  });
});
