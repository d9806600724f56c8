/**
 * The smallest `yarnSubmission` a recorded submission needs: an application master command.
 * The emulated RM runs apps from their tags; a real RM runs this command as the AM.
 */
export const SLEEP_AM = { 'am-container-spec': { commands: { command: 'sleep 300' } } } as const;
