/**
 * Keys by the time something falls due for them (a departure, a still-here):
 * a binary min-heap indexed by key, so a key's time moves (a new sighting
 * pushes its departure back) in O(log n) without leaving stale entries
 * behind, and the earliest is read in O(1).
 */
export interface Due {
  id: string;
  at: number;
}

export class DueHeap {
  private ids: string[] = [];
  private times: number[] = [];
  /** id → its position in the heap. */
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  /** When `id` falls due; undefined when it is not held. */
  atOf(id: string): number | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.times[i];
  }

  /** Sets (or moves) the time `id` falls due. */
  set(id: string, at: number): void {
    const i = this.index.get(id);
    if (i === undefined) {
      this.ids.push(id);
      this.times.push(at);
      this.index.set(id, this.ids.length - 1);
      this.up(this.ids.length - 1);
      return;
    }
    const before = this.times[i];
    this.times[i] = at;
    if (at < before) this.up(i);
    else if (at > before) this.down(i);
  }

  delete(id: string): boolean {
    const i = this.index.get(id);
    if (i === undefined) return false;
    const last = this.ids.length - 1;
    this.index.delete(id);
    if (i !== last) {
      this.place(i, this.ids[last], this.times[last]);
      this.ids.pop();
      this.times.pop();
      this.up(i);
      this.down(i);
    } else {
      this.ids.pop();
      this.times.pop();
    }
    return true;
  }

  /** The earliest, without removing it. */
  peek(): Due | undefined {
    return this.ids.length === 0 ? undefined : { id: this.ids[0], at: this.times[0] };
  }

  clear(): void {
    this.ids = [];
    this.times = [];
    this.index.clear();
  }

  private place(i: number, id: string, at: number): void {
    this.ids[i] = id;
    this.times[i] = at;
    this.index.set(id, i);
  }

  private up(i: number): void {
    const id = this.ids[i];
    const at = this.times[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.times[parent] <= at) break;
      this.place(i, this.ids[parent], this.times[parent]);
      i = parent;
    }
    this.place(i, id, at);
  }

  private down(i: number): void {
    const id = this.ids[i];
    const at = this.times[i];
    const n = this.ids.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.times[right] < this.times[left] ? right : left;
      if (this.times[child] >= at) break;
      this.place(i, this.ids[child], this.times[child]);
      i = child;
    }
    this.place(i, id, at);
  }
}
