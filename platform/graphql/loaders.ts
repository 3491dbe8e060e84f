/**
 * DataLoader batch functions: one query for a batch of keys, answered in key
 * order with `null` for keys that found nothing.
 */
export function batchByKey<K, T>(load: (keys: readonly K[]) => Promise<T[]>, keyOf: (row: T) => string, keyString: (key: K) => string) {
  return async (keys: readonly K[]): Promise<(T | null)[]> => {
    const rows = new Map((await load(keys)).map((r) => [keyOf(r), r]));
    return keys.map((k) => rows.get(keyString(k)) ?? null);
  };
}

/** `batchByKey` for rows looked up by their `id`. */
export function batchById<T extends { id: string }>(load: (ids: readonly string[]) => Promise<T[]>) {
  return batchByKey<string, T>(load, (row) => row.id, (id) => id);
}

/** Rows in the order of `ids`, missing ones dropped (a list page's rows, loaded by id). */
export function inOrder<T extends { id: string }>(ids: readonly string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
