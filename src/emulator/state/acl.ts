import { textRejection } from '../../errors/emulated-rm-rejection';
import { aclAllows, type EmulatorConfig, type QueueConfig } from '../config';
import type { AppRecord } from './types';

/** Who may do what with `yarn.acl.enable`: the RM's ACL checks and the names its refusals give. */
export class AppAcl {
  constructor(private readonly config: EmulatorConfig) {}

  /** The caller as the RM names it in its refusals: the user, or the static web user. */
  callerName(caller: string | undefined): string {
    return caller && caller !== '' ? caller : this.config.defaultUser;
  }

  /**
   * MODIFY_APP with `yarn.acl.enable`: the owner or an admin (`yarn.admin.acl`). The refusal is
   * the web services' 403 text entity, `Unauthorized attempt to <what> by remote user <u>`.
   */
  checkModify(rec: AppRecord, caller: string | undefined, what: string): void {
    if (!this.config.aclEnabled) return;
    const user = this.callerName(caller);
    if (user === rec.user || aclAllows(this.config.adminAcl, user)) return;
    throw textRejection(403, `Unauthorized attempt to ${what} by remote user ${user}`);
  }

  /** SUBMIT_APPLICATIONS on a queue with `yarn.acl.enable`. */
  maySubmit(queue: QueueConfig, user: string): boolean {
    return !this.config.aclEnabled || aclAllows(queue.submitAcl ?? '*', user);
  }
}
