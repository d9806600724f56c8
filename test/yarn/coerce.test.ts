/**
 * The body cursor (src/yarn/coerce.ts): the path it names in an error is where the value sits in
 * the body, however it was reached; and splitList, the RM's comma-separated lists.
 */
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { Node, splitList } from '../../src/yarn/coerce';

describe('Node paths', () => {
  const body = {
    apps: {
      app: [
        { id: 'a1', startedTime: 1 },
        { id: 'a2', startedTime: 'soon' },
      ],
    },
    one: { item: { n: 'x' } },
  };

  it('names a member reached through lists and members', () => {
    const apps = Node.root(body).get('apps').listOf('app');
    expect(apps.map((n) => n.path)).toEqual(['apps.app[0]', 'apps.app[1]']);
    expect(apps[1]!.get('startedTime').path).toBe('apps.app[1].startedTime');
    expect(apps[0]!.get('startedTime').num()).toBe(1);
    const err = (() => {
      try {
        return apps[1]!.get('startedTime').num();
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(RmMalformedResponseError);
    expect(err).toMatchObject({
      fieldPath: 'apps.app[1].startedTime',
      message: 'RM body: apps.app[1].startedTime should be a number, got "soon"',
    });
  });

  it('names a single object given for a list as its first item, and a missing member', () => {
    const [item] = Node.root(body).get('one').listOf('item');
    expect(item!.get('n').path).toBe('one.item[0].n');
    expect(() => item!.req('absent')).toThrow('RM body: one.item[0].absent should be present, got missing');
    expect(Node.root(body).path).toBe('');
    expect(Node.root(body).get('apps').path).toBe('apps');
    expect(new Node(1, 'given.path').get('x').path).toBe('given.path.x');
  });
});

describe('splitList', () => {
  it.each([
    ['a,b,c', ['a', 'b', 'c']],
    [' a , b,,c ', ['a', 'b', 'c']],
    ['', []],
    [',', []],
    ['single', ['single']],
    ['x,\ty', ['x', 'y']],
  ])('%j -> %j', (text, items) => {
    expect(splitList(text)).toEqual(items);
  });
});
