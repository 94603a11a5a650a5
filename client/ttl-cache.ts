/**
 * Promises remembered for a while by key: callers at the same moment share one lookup, a failed lookup
 * is forgotten at once (so the next caller tries again), and expired entries are dropped as others are added.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const known = this.entries.get(key);
    if (known && now - known.at < this.ttlMs) return known.value;
    for (const [k, e] of this.entries) if (now - e.at >= this.ttlMs) this.entries.delete(k);
    const value = load();
    const entry = { at: now, value };
    this.entries.set(key, entry);
    value.catch(() => this.entries.get(key) === entry && this.entries.delete(key));
    return value;
  }

  /** Remembers a value known without a lookup. */
  set(key: string, value: T): void {
    this.entries.set(key, { at: Date.now(), value: Promise.resolve(value) });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
