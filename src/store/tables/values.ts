/** The kv table: small named values (learned estimates, controller state), as JSON. */
import type { SqlRunner } from './sql';

export class ValueTable {
  constructor(private readonly run: SqlRunner) {}

  getValue<T>(key: string): T | undefined {
    const row = this.run.sql('SELECT value FROM kv WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  setValue(key: string, value: unknown): void {
    this.run
      .sql(
        'INSERT INTO kv (key, value, updated_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms',
      )
      .run(key, JSON.stringify(value), this.run.now());
  }

  valuesWithPrefix<T>(prefix: string): Array<{ key: string; value: T }> {
    if (prefix === '') throw new Error('valuesWithPrefix needs a prefix');
    // Every key that starts with the prefix sorts at or after it and before the prefix with its
    // last character's successor: one range of the key's index.
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return (
      this.run
        .sql('SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key')
        .all(prefix, end) as Array<{
        key: string;
        value: string;
      }>
    ).map((r) => ({ key: r.key, value: JSON.parse(r.value) as T }));
  }

  deleteValue(key: string): void {
    this.run.sql('DELETE FROM kv WHERE key = ?').run(key);
  }
}
