/**
 * A least-recently-used cache bounded by entries and, optionally, by the sum
 * of its values' weights (e.g. characters): adding past either bound evicts
 * the least recently used entries first. Node-RED-free.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  private weightSum = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxWeight = Infinity,
    private readonly weigh: (value: V) => number = () => 0,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The sum of the kept values' weights. */
  get weight(): number {
    return this.weightSum;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** The value, now the most recently used (Map keeps insertion order: re-inserting moves it last). */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.weightSum -= this.weigh(old);
    }
    this.map.set(key, value);
    this.weightSum += this.weigh(value);
    // the newest entry stays even when it alone is over the weight bound: the caller gets what it asked for
    while (this.map.size > 1 && (this.map.size > this.maxEntries || this.weightSum > this.maxWeight)) {
      const [oldest, evicted] = this.map.entries().next().value as [K, V];
      this.map.delete(oldest);
      this.weightSum -= this.weigh(evicted);
    }
  }

  clear(): void {
    this.map.clear();
    this.weightSum = 0;
  }
}
