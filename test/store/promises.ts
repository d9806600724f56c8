/** A promise's state as it goes, read without awaiting it: whether it settled, and its error. */
export function settled(p: Promise<unknown>): { done: boolean; error: unknown } {
  const state = { done: false, error: undefined as unknown };
  p.then(
    () => (state.done = true),
    (err: unknown) => {
      state.done = true;
      state.error = err;
    },
  );
  return state;
}

/** Lets the event loop run: the check phase (a group commit), then the callbacks queued so far. */
export async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}
