/**
 * The `input:PATH` tags: one per input path on a submission, so the RM side can tell what an
 * app reads; read back lower-cased as YARN stores tags.
 */
import { decodeTags, encodeTags, inputTags, MAX_TAG_LENGTH } from '../../src/loop/tags';

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
