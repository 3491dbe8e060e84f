/**
 * Whether `work` finishes within `ms`: true when it fulfils in time, false when it is still
 * pending then (it goes on; nobody waits for it any more). A rejection in time rejects. The timer
 * is cleared either way, so a bound never keeps the process alive.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
