import { EmulatedRmRejection, remoteRejection, textRejection } from '../../errors/emulated-rm-rejection';
import type { Engine } from '../../sim/engine';
import { formatExpiryTime, isRmExpiryFormat, parseExpiryTime } from '../../yarn/expiry';
import { queueLeaf } from '../../yarn/ids';
import type { SimTime } from '../clock';
import type { EmulatorConfig, QueueConfig } from '../config';
import { undeclaredThrowable } from '../http';
import type { AppAcl } from './acl';
import { parseFailureIndex } from './checks';
import { FINAL, FINAL_STORED, type AppRecord, type AppView } from './types';

/** What the writes need of the RM around them. */
export interface WriteHost {
  readonly config: EmulatorConfig;
  readonly engine: Engine;
  readonly time: SimTime;
  readonly acl: AppAcl;
  mustApp(appId: string): AppRecord;
  view(rec: AppRecord): AppView;
  queue(name: string): QueueConfig | undefined;
  /** A new lifetime was set: watch it again, even if an earlier one was handled. */
  rearmLifetime(appId: string): void;
}

/** The writes on an app: kill, move, priority, lifetime, as RMWebServices and ClientRMService do them. */
export class AppWrites {
  constructor(private readonly host: WriteHost) {}

  /**
   * PUT /apps/{id}/state, as RMWebServices and ClientRMService do it (measured on 3.4.3): the
   * target compared with the RMAppState (200 when equal); an app whose end is stored answers
   * 200 and that state (FINISHING included); an unmanaged AM's kill is answered done at once,
   * 200 with the state read before the kill is handled; any other kill 202, with the state
   * the app is in while the kill runs: KILLING once it has an attempt (ACCEPTED, RUNNING),
   * FINAL_SAVING before (KILLED at once from NEW). The kill itself is over at once here (a
   * few ms on a real RM), so a read or a repeated PUT says KILLED.
   */
  kill(
    appId: string,
    target: string,
    diagnostics: string | undefined,
    caller?: string,
  ): { status: 200 | 202; state: string } {
    const rec = this.host.mustApp(appId);
    const before = this.host.view(rec).rmState;
    if (before === target) return { status: 200, state: before };
    if (target !== 'KILLED') {
      throw remoteRejection(
        400,
        'BadRequestException',
        `java.lang.Exception: Only 'KILLED' is allowed as a target state.`,
      );
    }
    this.host.acl.checkModify(rec, caller, `kill appid ${appId}`);
    if (FINAL_STORED.has(before)) return { status: 200, state: before };
    // ClientRMService.forceKillApplication's message.
    const by = `Application ${appId} was killed by user ${this.host.acl.callerName(caller)}`;
    this.killNow(rec, diagnostics === undefined ? by : `${by} with diagnostic message: ${diagnostics}`);
    if (rec.unmanaged) return { status: 200, state: before };
    // RMAppImpl's transitions on KILL: an attempt to kill first, the end to store, or nothing.
    const during =
      before === 'ACCEPTED' || before === 'RUNNING'
        ? 'KILLING'
        : before === 'NEW'
          ? 'KILLED'
          : 'FINAL_SAVING';
    return { status: 202, state: during };
  }

  /** Kill an app now, with these diagnostics. */
  killNow(rec: AppRecord, diagnostics: string): void {
    if (rec.inEngine) this.host.engine.kill(rec.id);
    rec.killedSeconds = this.host.engine.now;
    rec.diagnostics.push(diagnostics);
  }

  /**
   * PUT /apps/{id}/queue: the queue after the call, as a full path (INDEX.md 9.1). As measured
   * on 3.4.3: with `aclEnabled`, a caller who may not modify the app, or may not submit to the
   * target (a queue that does not exist included), is refused 403; a final app is 400 (text);
   * without ACLs, a target that does not exist or is not a leaf, or cannot hold the app's
   * label, is the scheduler's YarnException: 503 UndeclaredThrowableException, no message.
   */
  move(appId: string, target: string | undefined, caller?: string): string {
    const rec = this.host.mustApp(appId);
    const leaf = target === undefined ? undefined : queueLeaf(target);
    // The same queue (leaf or full path): nothing to do, 200.
    if (
      leaf !== undefined &&
      rec.queueKnown &&
      leaf === rec.queue &&
      (target === leaf || target === `root.${leaf}`)
    )
      return `root.${rec.queue}`;
    const what = `move appid ${appId}`;
    this.host.acl.checkModify(rec, caller, what);
    const queue = leaf === undefined || target === 'root' ? undefined : this.host.queue(leaf);
    if (
      this.host.config.aclEnabled &&
      (!queue || !this.host.acl.maySubmit(queue, this.host.acl.callerName(caller)))
    )
      throw textRejection(
        403,
        `Unauthorized attempt to ${what} by remote user ${this.host.acl.callerName(caller)}`,
      );
    // ClientRMService's test, on the RMAppState: FINISHING is refused too.
    const state = this.host.view(rec).rmState;
    if (FINAL_STORED.has(state)) throw textRejection(400, `App in ${state} state cannot be moved.`);
    if (!queue) throw undeclaredThrowable();
    if (rec.partition !== '' && !queue.accessibleNodeLabels.includes(rec.partition))
      throw undeclaredThrowable();
    if (queue.name !== rec.queue) {
      rec.queue = queue.name;
      if (rec.inEngine) this.host.engine.moveToQueue(appId, queue.name);
    }
    return `root.${rec.queue}`;
  }

  /**
   * PUT /apps/{id}/priority, as measured on 3.4.3: capped at yarn.cluster.max-application-priority
   * (INDEX.md 9.2), not bounded below; a final app keeps its priority and answers it (200);
   * an app not yet accepted is the web services' 400 text.
   */
  setPriority(appId: string, priority: number, caller?: string): number {
    const rec = this.host.mustApp(appId);
    if (priority === rec.priority) return priority;
    this.host.acl.checkModify(rec, caller, `change priority of appid ${appId}`);
    const state = this.host.view(rec).state;
    if (FINAL.has(state)) return rec.priority;
    if (!['SUBMITTED', 'ACCEPTED', 'RUNNING'].includes(state)) {
      throw textRejection(400, `Application in ${state} state cannot be update priority.`);
    }
    const capped = Math.min(priority, this.host.config.maxApplicationPriority);
    if (capped !== rec.priority) {
      rec.priority = capped;
      if (rec.inEngine) this.host.engine.setPriority(appId, capped);
    }
    return rec.priority;
  }

  /**
   * PUT /apps/{id}/timeout (INDEX.md 9.3), as measured on 3.4.3: no type, or one that is not
   * LIFETIME, is the 400 text `Timeout type or ExpiryTime is null.`; a final app answers its
   * timeout unchanged (200) whatever the expiry; an expiry that is not
   * `yyyy-MM-dd'T'HH:mm:ss.SSSZ` (a missing one reads `UNLIMITED`) is 503
   * DateTimeParseException; one not in the future is 503 UndeclaredThrowableException.
   */
  setLifetime(
    appId: string,
    type: string | undefined,
    expiryTime: string | undefined,
    caller?: string,
  ): AppRecord {
    const rec = this.host.mustApp(appId);
    if (type !== 'LIFETIME') throw textRejection(400, 'Timeout type or ExpiryTime is null.');
    this.host.acl.checkModify(rec, caller, `change timeout of app ${appId}`);
    if (FINAL.has(this.host.view(rec).state)) return rec;
    const text = expiryTime ?? 'UNLIMITED';
    if (!isRmExpiryFormat(text)) {
      // java.time's DateTimeParseException, through the exception mapper.
      throw new EmulatedRmRejection({
        status: 503,
        exception: 'DateTimeParseException',
        javaClassName: 'java.time.format.DateTimeParseException',
        message: `Text '${text}' could not be parsed at index ${parseFailureIndex(text)}`,
      });
    }
    const expiry = parseExpiryTime(text)!;
    if (expiry <= this.host.time.nowEpochMs()) throw undeclaredThrowable();
    rec.lifetimeExpiryMs = expiry;
    this.host.rearmLifetime(rec.id);
    return rec;
  }

  /** The LIFETIME timeout as the RM reports it: UNLIMITED / -1 when none is set. */
  timeoutOf(rec: AppRecord): { type: string; expiryTime: string; remainingTimeInSeconds: number } {
    if (rec.lifetimeExpiryMs === null)
      return { type: 'LIFETIME', expiryTime: 'UNLIMITED', remainingTimeInSeconds: -1 };
    const remaining = Math.max(0, Math.floor((rec.lifetimeExpiryMs - this.host.time.nowEpochMs()) / 1000));
    return {
      type: 'LIFETIME',
      expiryTime: formatExpiryTime(rec.lifetimeExpiryMs),
      remainingTimeInSeconds: remaining,
    };
  }
}
