/**
 * The formats' quirks (INDEX.md sections 5, 9 and 12), one named case each, and property tests
 * for the normalisation guarantees.
 */
import fc from 'fast-check';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { Node } from '../../src/yarn/coerce';
import { formatExpiryTime, isRmExpiryFormat, parseExpiryTime } from '../../src/yarn/expiry';
import { decodeBody, parseXml } from '../../src/yarn/format';
import { appIdToJobId, queueLeaf, sameQueue } from '../../src/yarn/ids';
import * as m from '../../src/yarn/mapping';
import { amCommand, submissionContent } from '../../src/yarn/submission';

const app = (id: string) => ({ id, state: 'RUNNING' });

describe('lists', () => {
  it.each([
    ['null', { apps: null }],
    ['an empty object', { apps: {} }],
    ['a missing key', {}],
    ['an object with no app key', { apps: { other: 1 } }],
  ])('an empty apps list given as %s is []', (_name, body) => {
    expect(m.mapApps(body)).toEqual([]);
  });

  it('an empty XML element is an empty list', () => {
    expect(m.mapApps(parseXml('<apps/>'))).toEqual([]);
    expect(m.mapNodes(parseXml('<nodes></nodes>'))).toEqual([]);
  });

  it('a one-element list is read alike as an array, a bare object, and one XML element', () => {
    const asArray = m.mapApps({ apps: { app: [app('application_1_0001')] } });
    const asObject = m.mapApps({ apps: { app: app('application_1_0001') } });
    const asXml = m.mapApps(
      parseXml('<apps><app><id>application_1_0001</id><state>RUNNING</state></app></apps>'),
    );
    expect(asObject).toEqual(asArray);
    expect(asXml).toEqual(asArray);
    expect(asArray.map((a) => a.id)).toEqual(['application_1_0001']);
  });

  it('property: any list of apps reads the same as JSON array, and as XML (single or repeated elements)', () => {
    const id = fc
      .tuple(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 9999 }))
      .map(([t, n]) => `application_${t}_${String(n).padStart(4, '0')}`);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            id,
            startedTime: fc.integer({ min: 0, max: 2 ** 45 }),
            priority: fc.integer({ min: -5, max: 10 }),
          }),
          { maxLength: 6 },
        ),
        (apps) => {
          const json = m.mapApps({
            apps: apps.length ? { app: apps.map((a) => ({ ...a, state: 'RUNNING' })) } : {},
          });
          const xml = m.mapApps(
            parseXml(
              `<apps>${apps.map((a) => `<app><id>${a.id}</id><state>RUNNING</state><startedTime>${a.startedTime}</startedTime><priority>${a.priority}</priority></app>`).join('')}</apps>`,
            ),
          );
          expect(xml).toEqual(json);
          expect(json.map((a) => [a.id, a.startedTime, a.priority])).toEqual(
            apps.map((a) => [a.id, a.startedTime, a.priority]),
          );
        },
      ),
    );
  });
});

describe('numbers and discriminators', () => {
  it('numbers written as strings are numbers', () => {
    const [c] = m.mapContainers({
      containers: {
        container: { containerId: 'c1', allocatedMB: '1536', allocatedVCores: '1', elapsedTime: '4112' },
      },
    });
    expect(c).toMatchObject({ allocatedMB: 1536, allocatedVCores: 1, elapsedTime: 4112 });
  });

  it('a string that is not a number is a typed error naming the field', () => {
    const err = (() => {
      try {
        m.mapClusterMetrics({ clusterMetrics: { appsSubmitted: 'many' } });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(RmMalformedResponseError);
    expect((err as RmMalformedResponseError).fieldPath).toBe('clusterMetrics.appsSubmitted');
  });

  it('the xsi:type attribute becomes the type member', () => {
    const tree = parseXml(
      '<scheduler><schedulerInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="capacityScheduler"><capacity>100.0</capacity><queueName>root</queueName><queues><queue xsi:type="capacitySchedulerLeafQueueInfo"><queueName>a</queueName><capacity>100.0</capacity><nodeLabels>gpu</nodeLabels></queue></queues></schedulerInfo></scheduler>',
    );
    const s = m.mapScheduler(tree);
    expect(s.type).toBe('capacity');
    expect(s.root.children).toEqual([
      expect.objectContaining({ path: 'root.a', kind: 'leaf', accessibleNodeLabels: ['gpu'] }),
    ]);
  });

  it('an unknown scheduler type is a typed error, not a guess', () => {
    expect(() => m.mapScheduler({ scheduler: { schedulerInfo: { type: 'slurm' } } })).toThrow(
      RmMalformedResponseError,
    );
  });

  it('extra resource types such as yarn.io/gpu are kept beside memory and vcores', () => {
    const r = m.mapResource(
      Node.root(
        decodeBody(
          '{"memory":4096,"vCores":4,"resourceInformations":{"resourceInformation":[{"name":"memory-mb","value":4096},{"name":"vcores","value":4},{"name":"yarn.io/gpu","value":2}]}}',
          'json',
        ),
      ),
    );
    expect(r).toEqual({ memoryMB: 4096, vcores: 4, extra: { 'yarn.io/gpu': 2 } });
  });

  it('application tags are split from the comma list', () => {
    expect(
      m.mapApp({
        app: { id: 'application_1_0001', state: 'RUNNING', applicationTags: 'deadline=1700000000000,hourly' },
      }).applicationTags,
    ).toEqual(['deadline=1700000000000', 'hourly']);
  });
});

describe('timeouts and the expiry format (INDEX.md 9.3)', () => {
  it('UNLIMITED means no timeout', () => {
    expect(
      m.mapTimeouts({
        timeouts: { timeout: [{ type: 'LIFETIME', expiryTime: 'UNLIMITED', remainingTimeInSeconds: -1 }] },
      }),
    ).toEqual([{ type: 'LIFETIME', expiryTime: null, remainingTimeInSeconds: -1 }]);
  });

  it('the doc example: +05:30 and +0530 are the same instant', () => {
    expect(parseExpiryTime('2016-11-27T09:36:16.678+05:30')).toBe(
      parseExpiryTime('2016-11-27T09:36:16.678+0530'),
    );
    expect(parseExpiryTime('2016-11-27T09:36:16.678+0530')).toBe(Date.UTC(2016, 10, 27, 4, 6, 16, 678));
  });

  it('writes what the RM prints: milliseconds and ±HHMM, never +05:30', () => {
    expect(formatExpiryTime(Date.UTC(2016, 11, 5, 17, 21, 0, 104), 330)).toBe('2016-12-05T22:51:00.104+0530');
    expect(formatExpiryTime(Date.UTC(2016, 11, 5, 17, 21, 0, 104))).toBe('2016-12-05T17:21:00.104+0000');
    expect(formatExpiryTime(0, -480)).toBe('1969-12-31T16:00:00.000-0800');
    expect(isRmExpiryFormat('2016-11-27T09:36:16.678+05:30')).toBe(false);
  });

  it('an unreadable expiry time in a body is a typed error', () => {
    expect(() => m.mapTimeout({ timeout: { type: 'LIFETIME', expiryTime: 'tomorrow' } })).toThrow(
      RmMalformedResponseError,
    );
  });

  it('property: format then parse is the identity, in every zone, and the RM would accept the text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4102444800000 }),
        fc.integer({ min: -12 * 60, max: 14 * 60 }),
        (ms, offset) => {
          const text = formatExpiryTime(ms, offset);
          expect(isRmExpiryFormat(text)).toBe(true);
          expect(parseExpiryTime(text)).toBe(ms);
          expect(parseExpiryTime(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))).toBe(ms);
        },
      ),
    );
  });
});

describe('identifiers and queues', () => {
  it('maps an application id to its MapReduce job id', () => {
    expect(appIdToJobId('application_1429692837321_0001')).toBe('job_1429692837321_0001');
    expect(appIdToJobId('application_1326821518301_0010')).toBe('job_1326821518301_0010');
    expect(() => appIdToJobId('job_1_1')).toThrow(RangeError);
  });

  it('compares queue answers by leaf name (the RM answers root.test to a move to test)', () => {
    expect(sameQueue('test', 'root.test')).toBe(true);
    expect(sameQueue('root.test', 'test')).toBe(true);
    expect(sameQueue('root.a.test', 'root.b.test')).toBe(false);
    expect(sameQueue('test', 'root.other')).toBe(false);
    expect(queueLeaf('root.a.b')).toBe('b');
  });

  it('property: a queue is the same as its full path under any parents', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.array(name, { maxLength: 4 }), name, (parents, leaf) => {
        expect(sameQueue(leaf, ['root', ...parents, leaf].join('.'))).toBe(true);
      }),
    );
  });
});

describe('decoding', () => {
  it('an XML body with entities keeps their characters', () => {
    expect(parseXml('<appqueue><queue>a&amp;b</queue></appqueue>')).toEqual({ appqueue: { queue: 'a&b' } });
  });

  it('property: any prefix of a JSON body is either the whole body or a typed error', () => {
    const text = JSON.stringify({
      clusterInfo: { id: 1, haState: 'ACTIVE', resourceManagerVersion: '3.3.6' },
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: text.length - 1 }), (cut) => {
        expect(() => m.mapClusterInfo(decodeBody(text.slice(0, cut), 'json'))).toThrow(
          RmMalformedResponseError,
        );
      }),
    );
    expect(m.mapClusterInfo(decodeBody(text, 'json')).haState).toBe('ACTIVE');
  });

  it('property: any truncation of an XML body is a typed error, never a partial object', () => {
    const text =
      '<?xml version="1.0"?><clusterInfo><id>1</id><haState>ACTIVE</haState><resourceManagerVersion>3.3.6</resourceManagerVersion></clusterInfo>';
    fc.assert(
      fc.property(fc.integer({ min: 1, max: text.length - 1 }), (cut) => {
        expect(() => m.mapClusterInfo(decodeBody(text.slice(0, cut), 'xml'))).toThrow(
          RmMalformedResponseError,
        );
      }),
    );
  });
});

describe('request bodies', () => {
  it('the submission is unwrapped in JSON and wrapped in XML', () => {
    const s = {
      applicationId: 'application_1_0001',
      name: 'n',
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('a && b'),
    };
    const json = JSON.parse(
      m.encodeBody('json', 'application-submission-context', submissionContent(s), false).data,
    ) as Record<string, unknown>;
    expect(json['application-submission-context']).toBeUndefined();
    expect(json).toMatchObject({
      'application-id': 'application_1_0001',
      'am-container-spec': { commands: { command: 'a && b' } },
    });
    const xml = m.encodeBody('xml', 'application-submission-context', submissionContent(s), false);
    expect(xml.contentType).toBe('application/xml');
    expect(parseXml(xml.data)).toMatchObject({
      'application-submission-context': { 'application-id': 'application_1_0001' },
    });
  });

  it('the timeout is wrapped in both formats', () => {
    expect(JSON.parse(m.encodeBody('json', 'timeout', { type: 'LIFETIME' }, true).data)).toEqual({
      timeout: { type: 'LIFETIME' },
    });
  });

  it('the reservation definition round-trips through the list mapping', () => {
    const def = {
      arrival: 1765541532000,
      deadline: 1765542252000,
      name: 'r',
      priority: 1,
      recurrenceExpression: '86400000',
      interpreter: 1,
      requests: [
        {
          capability: { memoryMB: 1024, vcores: 1, extra: {} },
          numContainers: 4,
          minConcurrency: 4,
          durationMs: 60000,
        },
      ],
    };
    const listed = m.mapReservationList({
      reservations: {
        'reservation-id': 'reservation_1_0001',
        'reservation-definition': m.reservationDefinitionContent(def) as never,
      },
    });
    expect(listed[0]!.definition).toEqual(def);
  });
});
