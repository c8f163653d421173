/**
 * Keeps the sandbox simulators' worlds (accounts, tokens, posts, comments ...) in the data dir, so a
 * restart of a sandbox-mode process does not leave channels `connected` with tokens the simulators no
 * longer know. One JSON file per simulator family in <dataDir>/sandbox/, loaded at start, written after
 * a request changed it (debounced) and at shutdown; each write goes to a temporary file that is then
 * renamed over the old one, so a crash mid-write never leaves a half-written file behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SimulatorLedger } from './simulator-kit.js';

/** A simulator state that can be saved as JSON-compatible fields (Maps, Sets and bigints allowed). */
export interface PersistableState {
  snapshot(): Record<string, unknown>;
  restore(data: Record<string, unknown>): void;
}

export interface PersistedSimulator {
  state: PersistableState;
  ledger: SimulatorLedger;
}

const FORMAT = 1;

/** JSON with Maps, Sets and bigints tagged, so they come back as what they were. */
function encodeState(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Map) return { $map: [...v.entries()] };
    if (v instanceof Set) return { $set: [...v.values()] };
    if (typeof v === 'bigint') return { $bigint: v.toString() };
    return v;
  });
}

function decodeState(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1) {
        if (keys[0] === '$map' && Array.isArray(o.$map)) return new Map(o.$map as Array<[unknown, unknown]>);
        if (keys[0] === '$set' && Array.isArray(o.$set)) return new Set(o.$set);
        if (keys[0] === '$bigint' && typeof o.$bigint === 'string') return BigInt(o.$bigint);
      }
    }
    return v;
  });
}

/** The named fields of a state object (for `snapshot`). */
export function pickFields(obj: object, keys: readonly string[]): Record<string, unknown> {
  const source = obj as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, source[k]]));
}

/**
 * Puts saved fields back (for `restore`). Maps and Sets are refilled in place, since routes may hold
 * them; other fields are replaced. Fields missing from the saved data keep their fresh value.
 */
export function restoreFields(obj: object, data: Record<string, unknown>, keys: readonly string[]): void {
  const target = obj as Record<string, unknown>;
  for (const key of keys) {
    if (!(key in data)) continue;
    const current = target[key];
    const saved = data[key];
    if (current instanceof Map && saved instanceof Map) {
      current.clear();
      for (const [k, v] of saved) current.set(k, v);
    } else if (current instanceof Set && saved instanceof Set) {
      current.clear();
      for (const v of saved) current.add(v);
    } else target[key] = saved;
  }
}

export class SandboxStore {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly dir: string,
    private readonly simulators: Record<string, PersistedSimulator>,
    private readonly warn: (message: string) => void = () => {},
    private readonly debounceMs = 250,
  ) {}

  fileOf(family: string): string {
    return path.join(this.dir, `${family}.json`);
  }

  /** Restores every family saved earlier; a file that cannot be read is set aside and that family starts fresh. */
  load(): string[] {
    const restored: string[] = [];
    for (const [family, sim] of Object.entries(this.simulators)) {
      const file = this.fileOf(family);
      if (!fs.existsSync(file)) continue;
      try {
        const saved = decodeState(fs.readFileSync(file, 'utf8')) as {
          format: number;
          state: Record<string, unknown>;
          ledger?: { posts?: unknown[]; comments?: unknown[] };
        };
        if (saved.format !== FORMAT) throw new Error(`unknown format ${String(saved.format)}`);
        sim.state.restore(saved.state);
        sim.ledger.posts.splice(0, sim.ledger.posts.length, ...((saved.ledger?.posts ?? []) as SimulatorLedger['posts']));
        sim.ledger.comments.splice(0, sim.ledger.comments.length, ...((saved.ledger?.comments ?? []) as SimulatorLedger['comments']));
        restored.push(family);
      } catch (err) {
        const aside = `${file}.unreadable-${Date.now()}`;
        fs.renameSync(file, aside);
        this.warn(`sandbox: could not restore the ${family} simulator from ${file} (${(err as Error).message}); moved to ${aside}`);
      }
    }
    return restored;
  }

  /** Notes that a family changed (or every family, without one) and saves shortly after. */
  touch(family?: string): void {
    if (family && family in this.simulators) this.dirty.add(family);
    else for (const f of Object.keys(this.simulators)) this.dirty.add(f);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.flush(false);
      } catch (err) {
        this.warn(`sandbox: could not save the simulators' state (${(err as Error).message})`);
      }
    }, this.debounceMs);
    this.timer.unref();
  }

  /** Writes the changed families now (every family with `all`). */
  flush(all = true): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const families = all ? Object.keys(this.simulators) : [...this.dirty];
    this.dirty.clear();
    if (families.length === 0) return;
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const family of families) {
      const sim = this.simulators[family]!;
      const body = encodeState({
        format: FORMAT,
        state: sim.state.snapshot(),
        ledger: { posts: sim.ledger.posts, comments: sim.ledger.comments },
      });
      const file = this.fileOf(family);
      const tmp = `${file}.${process.pid}.tmp`;
      // tokens live in these files: readable by the owner only
      fs.writeFileSync(tmp, body, { mode: 0o600 });
      fs.renameSync(tmp, file);
    }
  }
}
