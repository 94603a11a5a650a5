/** A least-recently-used cache bounded by the sizes its callers give (estimated heap bytes, for the archive). */
export class ByteLru<V> {
  // Map iteration order doubles as LRU order.
  private readonly items = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const item = this.items.get(key);
    if (!item) return undefined;
    this.items.delete(key);
    this.items.set(key, item);
    return item.value;
  }

  /** An item larger than the whole cache is not kept. */
  set(key: string, value: V, bytes: number): void {
    const old = this.items.get(key);
    if (old) {
      this.items.delete(key);
      this.total -= old.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.items.set(key, { value, bytes });
    this.total += bytes;
    for (const [k, item] of this.items) {
      if (this.total <= this.maxBytes) break;
      this.items.delete(k);
      this.total -= item.bytes;
    }
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.total;
  }
}
