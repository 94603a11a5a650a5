/** At most `limit` tasks run at once for each key; the others wait their turn, first come first served. */
export class KeyedLimiter {
  private readonly slots = new Map<string, { active: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = { active: 0, waiting: [] }));
    const mine = slot;
    if (mine.active < this.limit) mine.active++;
    else await new Promise<void>((resolve) => mine.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = mine.waiting.shift();
      if (next)
        next(); // the slot passes on, still counted as active
      else if (--mine.active === 0) this.slots.delete(key);
    }
  }
}
