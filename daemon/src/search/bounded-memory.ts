/**
 * Sets `key` in a memory of at most `max` entries (a Map, in insertion order): when full, its oldest
 * tenth (at least one) is dropped first, so a full memory pays one sweep per tenth, not one per entry.
 */
export function rememberBounded<V>(map: Map<string, V>, max: number, key: string, value: V): void {
  if (map.size >= max) {
    let drop = Math.max(1, Math.floor(max / 10));
    for (const k of map.keys()) {
      map.delete(k);
      if (--drop <= 0) break;
    }
  }
  map.set(key, value);
}
