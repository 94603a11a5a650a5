/** At most `limit` tasks run at once for each key; the others wait their turn, first come first served. */
export class KeyedLimiter {
  private readonly slots = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  /**
   * `holdAtMostMs`: the task keeps its slot at most this long, then lets the next one go while it goes on
   * (for a task whose long tail is a wait that holds back nobody, such as an update waited for to completion).
   */
  async run<T>(key: string, task: () => Promise<T>, holdAtMostMs?: number): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { active: 0, waiting: [] }));
    const mine = slot;
    if (mine.active < this.limit) mine.active++;
    else await new Promise<void>((resolve) => mine.waiting.push(resolve));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      const next = mine.waiting.shift();
      if (next)
        next(); // the slot passes on, still counted as active
      else if (--mine.active === 0) this.slots.delete(key);
    };
    const timer = holdAtMostMs === undefined ? undefined : setTimeout(release, holdAtMostMs);
    timer?.unref?.();
    try {
      return await task();
    } finally {
      release();
    }
  }
}
