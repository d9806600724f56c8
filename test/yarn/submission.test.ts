import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapConfValue, MAX_APP_PRIORITY_KEY } from '../../src/yarn/conf';
import { decodeBody } from '../../src/yarn/format';
import { encodeBody } from '../../src/yarn/mapping';
import {
  amCommand,
  parseSubmissionRequest,
  redactSubmissionRequest,
  submissionContent,
} from '../../src/yarn/submission';
import { issueLines } from '../validation-issues';

/** Hadoop's own documented submission body (ResourceManagerRest.md, "Submit Application"). */
const DOC_SAMPLE = JSON.parse(
  readFileSync(join(__dirname, '../fixtures/yarn-rm-api/samples/apps-submit.request.json'), 'utf8'),
) as Record<string, unknown>;

/** The doc's sample without what the sidecar decides itself. */
function userPart(): Record<string, unknown> {
  const {
    'application-id': _id,
    'application-name': _name,
    'reservation-id': _r,
    'am-black-listing-requests': _b,
    ...rest
  } = DOC_SAMPLE;
  return rest;
}

describe('the submission context', () => {
  it("reads Hadoop's documented sample whole and sends back the same body", () => {
    const request = parseSubmissionRequest(userPart());
    expect(request.am.localResources['AppMaster.jar']).toEqual({
      resource: 'hdfs://hdfs-namenode:9000/user/testuser/DistributedShell/demo-app/AppMaster.jar',
      type: 'FILE',
      visibility: 'APPLICATION',
      size: 43004,
      timestamp: 1405452071209,
    });
    expect(Object.keys(request.am.environment)).toEqual([
      'DISTRIBUTEDSHELLSCRIPTTIMESTAMP',
      'CLASSPATH',
      'DISTRIBUTEDSHELLSCRIPTLEN',
      'DISTRIBUTEDSHELLSCRIPTLOCATION',
    ]);
    expect(request).toMatchObject({
      amResource: { memoryMB: 1024, vcores: 1 },
      applicationType: 'YARN',
      maxAppAttempts: 2,
      unmanagedAM: false,
      keepContainersAcrossApplicationAttempts: false,
      attemptFailuresValidityIntervalMs: 3600000,
      logAggregation: {
        logIncludePattern: 'file1',
        logExcludePattern: 'file2',
        rolledLogIncludePattern: 'file3',
        rolledLogExcludePattern: 'file4',
        policyParameters: '',
      },
    });
    const body = submissionContent({
      ...request,
      applicationId: 'application_1404203615263_0001',
      name: 'test',
      reservationId: 'reservation_1454114874_1',
    });
    // Every field of the doc's sample the RM still reads comes back as it was.
    const { 'am-black-listing-requests': _removed, ...expected } = DOC_SAMPLE;
    expect(body).toEqual(expected);
  });

  it('encodes in XML with the same field names, maps as entry lists', () => {
    const request = parseSubmissionRequest(userPart());
    const xml = encodeBody(
      'xml',
      'application-submission-context',
      submissionContent({ ...request, applicationId: 'application_1_0001', name: 'n', tags: ['a', 'b'] }),
      false,
    );
    const tree = decodeBody(xml.data, 'xml', 'application/xml', 'test') as Record<
      string,
      Record<string, unknown>
    >;
    const ctx = tree['application-submission-context']!;
    expect(ctx['application-tags']).toEqual({ tag: ['a', 'b'] });
    expect(ctx['am-container-spec']).toMatchObject({
      'local-resources': {
        entry: { key: 'AppMaster.jar', value: { type: 'FILE', visibility: 'APPLICATION' } },
      },
    });
  });

  it.each([
    ['no AM command', {}, ['yarnSubmission.am-container-spec: ']],
    [
      'an empty AM command',
      { 'am-container-spec': { commands: { command: '  ' } } },
      ['yarnSubmission.am-container-spec.commands.command: must not be empty'],
    ],
    [
      'a field the sidecar decides',
      { ...userPart(), queue: 'x', 'application-tags': { tag: ['a'] } },
      ['yarnSubmission.queue: is not accepted', 'yarnSubmission.application-tags: is not accepted'],
    ],
    [
      'a misspelt field',
      { 'am-container-spec': { commands: { command: 'true' } }, 'max-app-attempt': 2 },
      ['yarnSubmission: unknown field(s) max-app-attempt'],
    ],
    [
      'a local resource of an unknown type',
      {
        'am-container-spec': {
          commands: { command: 'true' },
          'local-resources': {
            entry: [
              {
                key: 'a',
                value: { resource: 'hdfs:///a', type: 'DIR', visibility: 'PUBLIC', size: 1, timestamp: 1 },
              },
            ],
          },
        },
      },
      ['yarnSubmission.am-container-spec.local-resources.entry'],
    ],
    [
      'an environment variable given twice',
      {
        'am-container-spec': {
          commands: { command: 'true' },
          environment: {
            entry: [
              { key: 'A', value: '1' },
              { key: 'A', value: '2' },
            ],
          },
        },
      },
      ["yarnSubmission.am-container-spec.environment.entry.1.key: 'A' is given twice"],
    ],
    [
      'a fractional AM memory',
      { 'am-container-spec': { commands: { command: 'true' } }, resource: { memory: 0.5, vCores: 1 } },
      ['yarnSubmission.resource.memory: must be a whole number'],
    ],
  ])('refuses %s, naming the field', (_what, body, expected) => {
    const issues = issueLines(() => parseSubmissionRequest(body));
    for (const e of expected) expect(issues.some((i) => i.startsWith(e))).toBe(true);
  });

  it('never shows credentials: names kept, values hidden', () => {
    const request = parseSubmissionRequest({
      'am-container-spec': {
        commands: { command: 'true' },
        credentials: { tokens: { entry: [{ key: 'hdfs', value: 'dG9rZW4=' }] }, secrets: { entry: [] } },
      },
    });
    expect(request.am.credentials!.tokens).toEqual({ hdfs: 'dG9rZW4=' });
    expect(redactSubmissionRequest(request).am.credentials).toEqual({
      tokens: { hdfs: '[redacted]' },
      secrets: {},
    });
  });

  it('a command alone makes a launch context with nothing else', () => {
    expect(submissionContent({ applicationId: 'a', name: 'n', am: amCommand('sleep 1') })).toEqual({
      'application-id': 'a',
      'application-name': 'n',
      'am-container-spec': { commands: { command: 'sleep 1' } },
      'application-type': 'YARN',
    });
  });
});

describe('the configuration servlet (/conf)', () => {
  it.each([
    [
      'JSON, one property',
      '{"property":{"key":"yarn.cluster.max-application-priority","value":"0","isFinal":false,"resource":"yarn-default.xml"}}',
      'json',
      '0',
    ],
    [
      'JSON, every property',
      '{"properties":[{"key":"a","value":"1"},{"key":"yarn.cluster.max-application-priority","value":"10"}]}',
      'json',
      '10',
    ],
    [
      'XML',
      '<?xml version="1.0" encoding="UTF-8" standalone="no"?><configuration><property><name>yarn.cluster.max-application-priority</name><value>7</value><final>false</final><source>yarn-site.xml</source></property></configuration>',
      'xml',
      '7',
    ],
    ['JSON without the key', '{"properties":[{"key":"a","value":"1"}]}', 'json', undefined],
  ] as const)('reads the cap from %s', (_what, text, format, value) => {
    const tree = decodeBody(text, format, format === 'json' ? 'application/json' : 'text/xml', 'test');
    expect(mapConfValue(tree, MAX_APP_PRIORITY_KEY)).toBe(value);
  });
});
