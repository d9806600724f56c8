import {
  appIdOf,
  decodeAction,
  decodeActions,
  refusalStatusOf,
  reservationIdOf,
  type ActionPayload,
} from '../../src/enforce/outbox';
import { OutboxActionInvalidError } from '../../src/errors/outbox-action-invalid';
import type { ActionRecord } from '../../src/store/types';
import { amCommand } from '../../src/yarn/submission';

/** A ledger row as read back, its payload through JSON as the ledger stores it. */
function row(id: number, action: { kind: string; payload: unknown }): ActionRecord {
  return {
    id,
    jobId: 'j',
    kind: action.kind,
    payload: JSON.parse(JSON.stringify(action.payload)) as unknown,
    status: 'pending',
    attempts: 0,
    result: null,
    error: null,
    createdMs: 1,
    updatedMs: 1,
  };
}

const written: ActionPayload[] = [
  {
    kind: 'submit',
    payload: {
      sidecarId: 'j',
      name: 'nightly',
      user: 'alice',
      queue: 'realtime',
      priority: 4,
      labelExpression: null,
      tags: ['sidecar-id:j'],
      applicationType: 'MAPREDUCE',
      request: { am: amCommand('sleep 1'), maxAppAttempts: 2 },
    },
  },
  { kind: 'set-priority', payload: { appId: 'application_1_0001', priority: 7 } },
  { kind: 'move-queue', payload: { appId: 'application_1_0001', queue: 'realtime' } },
  { kind: 'set-lifetime', payload: { appId: 'application_1_0001', expiryMs: 90_000 } },
  {
    kind: 'reserve',
    payload: {
      queue: 'realtime',
      definition: {
        arrival: 1,
        deadline: 2,
        name: 'j',
        interpreter: 2,
        requests: [
          {
            durationMs: 1000,
            numContainers: 3,
            minConcurrency: 1,
            capability: { memoryMB: 1024, vcores: 1, extra: {} },
          },
        ],
      },
    },
  },
];

describe('the outbox decoders', () => {
  it('read back every kind the plan writes as it was written', () => {
    written.forEach((w, i) => {
      const action = decodeAction(row(i + 1, w));
      expect([action.id, action.kind, action.payload]).toEqual([i + 1, w.kind, w.payload]);
    });
  });

  it('name the action, its kind and every field at fault', () => {
    const err = (() => {
      try {
        decodeAction(row(42, { kind: 'set-lifetime', payload: { appId: '', expiryMs: 'soon' } }));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(OutboxActionInvalidError);
    const e = err as OutboxActionInvalidError;
    expect([e.code, e.actionId, e.kind]).toEqual(['OUTBOX_ACTION_INVALID', 42, 'set-lifetime']);
    expect(e.issues.map((i) => i.path)).toEqual(['payload.appId', 'payload.expiryMs']);
    expect(e.message).toMatch(
      /^outbox action 42 \(set-lifetime\) cannot be read: payload\.appId: must not be empty; /,
    );
  });

  it('refuse a null payload and a submission with neither request nor yarnSubmission', () => {
    expect(() => decodeAction(row(1, { kind: 'move-queue', payload: null }))).toThrow(/payload: /);
    const { request: _request, ...bare } = (written[0] as Extract<ActionPayload, { kind: 'submit' }>).payload;
    expect(() => decodeAction(row(2, { kind: 'submit', payload: bare }))).toThrow(
      'outbox action 2 (submit) cannot be read: payload.request: is missing (and no yarnSubmission to read it from)',
    );
  });

  it('split rows into the ones that decode, in order, and the errors of the others', () => {
    const { actions, invalid } = decodeActions([
      row(1, written[1]!),
      row(2, { kind: 'set-priority', payload: { appId: 'a' } }),
      row(3, written[2]!),
    ]);
    expect(actions.map((a) => a.id)).toEqual([1, 3]);
    expect(invalid.map((x) => [x.record.id, x.error.issues[0]!.path])).toEqual([[2, 'payload.priority']]);
  });

  it('read the app an action writes to, a reservation id and a refusal status', () => {
    expect(written.map((w, i) => appIdOf(decodeAction(row(i, w))))).toEqual([
      undefined,
      'application_1_0001',
      'application_1_0001',
      'application_1_0001',
      undefined,
    ]);
    expect(reservationIdOf({ reservationId: 'reservation_1_0001' })).toBe('reservation_1_0001');
    expect(reservationIdOf({ shadow: true })).toBeUndefined();
    expect(reservationIdOf(null)).toBeUndefined();
    expect(refusalStatusOf({ refusal: { code: 'RM_REMOTE', status: 503 } })).toBe(503);
    expect(refusalStatusOf({ refusal: { code: 'UNKNOWN' } })).toBeUndefined();
    expect(refusalStatusOf({ invalid: { code: 'OUTBOX_ACTION_INVALID' } })).toBeUndefined();
  });
});
