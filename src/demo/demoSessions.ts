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

/** Reads and writes the demo agent's session records (one file per session). */
export class DemoSessionStore {
  constructor(private readonly dir: string) {}

  private file(sessionId: string): string {
    // Session ids come from clients: only our own shape names a file.
    if (!/^demo-[0-9a-f-]{36}$/.test(sessionId)) throw new Error('not a demo session id');
    return path.join(this.dir, `${sessionId}.json`);
  }

  save(record: DemoSessionRecord): void {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.writeFileSync(`${this.file(record.sessionId)}.tmp`, JSON.stringify(record));
    fs.renameSync(`${this.file(record.sessionId)}.tmp`, this.file(record.sessionId));
  }

  /** The record of `sessionId`, or undefined when there is none (or it is unreadable). */
  load(sessionId: string): DemoSessionRecord | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.file(sessionId), 'utf8')) as DemoSessionRecord;
    } catch {
      return undefined;
    }
  }

  /** Every session in `cwd` (all when undefined), newest first, without their histories. */
  list(cwd?: string): SessionInfo[] {
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: SessionInfo[] = [];
    for (const name of names) {
      const r = this.load(name.slice(0, -'.json'.length));
      if (r && (!cwd || r.cwd === cwd)) out.push({ sessionId: r.sessionId, cwd: r.cwd, title: r.title ?? null, updatedAt: r.updatedAt });
    }
    return out.sort((a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt)));
  }
}
