/**
 * The demo agent's memory of its sessions across processes, so that `session/list`, `session/load`
 * and `session/resume` can be shown (and tested) offline: each session's updates are kept in a JSON
 * file of its own under `SWITCHBOARD_DEMO_STATE_DIR` (default: a folder in the system temp dir).
 *
 * Spec: ACP v1 session setup (https://agentclientprotocol.com/protocol/session-setup#loading-sessions)
 * and the session list (https://agentclientprotocol.com/protocol/session-list).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionInfo, SessionUpdate } from '@agentclientprotocol/sdk';

/** One remembered session. */
export interface DemoSessionRecord {
  sessionId: string;
  cwd: string;
  title?: string;
  /** ISO 8601. */
  updatedAt: string;
  /** Every `session/update` of the session, the person's prompts included, in order. */
  history: SessionUpdate[];
}

/** The folder the demo agent keeps its sessions in. */
export function demoStateDir(env: NodeJS.ProcessEnv): string {
  return env.SWITCHBOARD_DEMO_STATE_DIR || path.join(os.tmpdir(), 'agent-switchboard-demo-sessions');
}

/** A session record's file name: only our own id shape names a file. */
const RECORD = /^(demo-[0-9a-f-]{36})\.json$/;

/**
 * Reads and writes the demo agent's session records: each session's whole record in
 * `<sessionId>.json`, and its list entry alone (no history) in `<sessionId>.info.json`, so that
 * `session/list` reads a few hundred bytes per session instead of every session's history (a folder
 * of 643 sessions, 2 GB of history from long turns, took 28 s to list when each record was parsed).
 */
export class DemoSessionStore {
  constructor(private readonly dir: string) {}

  private file(sessionId: string, kind: 'record' | 'info' = 'record'): string {
    // Session ids come from clients: only our own shape names a file.
    if (!/^demo-[0-9a-f-]{36}$/.test(sessionId)) throw new Error('not a demo session id');
    return path.join(this.dir, kind === 'record' ? `${sessionId}.json` : `${sessionId}.info.json`);
  }

  /** Writes a file whole or not at all (a reader never sees half of it). */
  private writeWhole(file: string, text: string): void {
    fs.writeFileSync(`${file}.tmp`, text);
    fs.renameSync(`${file}.tmp`, file);
  }

  /** Saves `record`, then its list entry (a crash between the two leaves an older entry, never a wrong one). */
  save(record: DemoSessionRecord): void {
    fs.mkdirSync(this.dir, { recursive: true });
    this.writeWhole(this.file(record.sessionId), JSON.stringify(record));
    this.writeWhole(this.file(record.sessionId, 'info'), JSON.stringify(infoOf(record)));
  }

  /** The record of `sessionId`, or undefined when there is none (or it is unreadable). */
  load(sessionId: string): DemoSessionRecord | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.file(sessionId), 'utf8')) as DemoSessionRecord;
    } catch {
      return undefined;
    }
  }

  /**
   * Every session in `cwd` (all when undefined), newest first, without their histories. A record
   * saved before list entries existed is read whole once and its entry written then.
   */
  list(cwd?: string): SessionInfo[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    const present = new Set(names);
    const out: SessionInfo[] = [];
    for (const name of names) {
      const sessionId = RECORD.exec(name)?.[1];
      if (!sessionId) continue;
      const info = present.has(`${sessionId}.info.json`) ? this.info(sessionId) : this.backfill(sessionId);
      if (info && (!cwd || info.cwd === cwd)) out.push(info);
    }
    return out.sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
  }

  /** The list entry of `sessionId`, or undefined when it is unreadable or not of that session. */
  private info(sessionId: string): SessionInfo | undefined {
    try {
      const v = JSON.parse(fs.readFileSync(this.file(sessionId, 'info'), 'utf8')) as Partial<SessionInfo>;
      if (v.sessionId !== sessionId || typeof v.cwd !== 'string') return this.backfill(sessionId);
      return { sessionId, cwd: v.cwd, title: typeof v.title === 'string' ? v.title : null, updatedAt: typeof v.updatedAt === 'string' ? v.updatedAt : null };
    } catch {
      return this.backfill(sessionId);
    }
  }

  /** The list entry from the whole record, written beside it for the next list (best effort). */
  private backfill(sessionId: string): SessionInfo | undefined {
    const r = this.load(sessionId);
    if (!r || r.sessionId !== sessionId) return undefined;
    const info = infoOf(r);
    try {
      this.writeWhole(this.file(sessionId, 'info'), JSON.stringify(info));
    } catch {
      // a read-only folder still lists, only more slowly
    }
    return info;
  }
}

/** A record's `session/list` entry. */
function infoOf(r: DemoSessionRecord): SessionInfo {
  return { sessionId: r.sessionId, cwd: r.cwd, title: r.title ?? null, updatedAt: r.updatedAt };
}
