/**
 * The scanner: given a session's folder and the agent that will start there, the repository's
 * parts that make that agent run something or skip asking, with their exact text, a hash of the
 * exact contents of every file read (what a consent is keyed by) and what can be switched off.
 *
 * Pure apart from reading the folder (`node:fs`); no `vscode`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sourcesFor, type AgentKind, type ConfigSource } from './kinds';
import { readParts, type ConfigPart } from './readers';

/** One part of one repository file that makes the agent run something or skip asking. */
export interface AgentConfigFinding extends ConfigPart {
  /** The file, relative to the session's folder, with `/`. */
  file: string;
  /** What turns it off when the agent starts without it; undefined when nothing does. */
  off?: string;
}

/** What {@link scanAgentConfig} found. */
export interface AgentConfigScan {
  kind: AgentKind;
  /** The folder scanned (the session's folder). */
  root: string;
  findings: AgentConfigFinding[];
  /** sha256 (hex) of the agent kind and every file read, path and exact content. */
  hash: string;
  /**
   * Why the parts cannot be shown in full (a file too large, too many files), so allowing them is
   * refused; undefined when everything is shown.
   */
  unshowable?: string;
}

/** Files larger than this are not shown (and so cannot be allowed). */
export const MAX_FILE_BYTES = 256 * 1024;
/** Files read per folder source, at most; more makes the scan refuse to offer "allow". */
export const MAX_DIR_FILES = 300;
const MAX_DEPTH = 8;

/** Scans `root` for the configuration `kind` reads. Never throws for unreadable files: they are skipped. */
export function scanAgentConfig(root: string, kind: AgentKind): AgentConfigScan {
  const findings: AgentConfigFinding[] = [];
  const read = new Map<string, string>();
  const problems: string[] = [];
  for (const source of sourcesFor(kind)) {
    for (const rel of filesOf(root, source, problems)) {
      const abs = path.join(root, rel);
      const content = readText(abs, rel, problems);
      if (content === undefined) continue;
      read.set(rel, content);
      if (content === TOO_LARGE) {
        findings.push({ file: rel, kind: 'changes what the agent may do', where: 'whole file', text: `(${fs.statSync(abs).size} bytes: too large to show)`, ...(source.off ? { off: source.off } : {}) });
        continue;
      }
      for (const part of readParts(source.format, content)) findings.push({ file: rel, ...part, ...(source.off ? { off: source.off } : {}) });
    }
  }
  const hash = createHash('sha256');
  hash.update(`agent-config/1\0${kind}\0`);
  for (const rel of [...read.keys()].sort()) hash.update(`${rel}\0${read.get(rel)}\0`);
  return { kind, root, findings: dedupe(findings), hash: hash.digest('hex'), ...(problems.length ? { unshowable: problems.join(' ') } : {}) };
}

const TOO_LARGE = '\0too-large';

/** One file read as text; {@link TOO_LARGE} when over the limit; undefined when absent or unreadable. */
function readText(abs: string, rel: string, problems: string[]): string | undefined {
  try {
    const st = fs.statSync(abs);
    if (!st.isFile()) return undefined;
    if (st.size > MAX_FILE_BYTES) {
      problems.push(`${rel} is ${st.size} bytes, more than can be shown.`);
      return TOO_LARGE;
    }
    return fs.readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
}

/** The files of one source that exist, relative to `root` with `/`, sorted. */
function filesOf(root: string, source: ConfigSource, problems: string[]): string[] {
  if (!source.dir) return [source.path];
  const out: string[] = [];
  let overflow = false;
  const walk = (rel: string, depth: number) => {
    if (depth > MAX_DEPTH) {
      // What lies deeper is not looked at, so it cannot be shown, and so it cannot be allowed.
      problems.push(`${rel} lies more than ${MAX_DEPTH} folders deep, deeper than is looked through.`);
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = `${rel}/${e.name}`;
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        try {
          isDir = fs.statSync(path.join(root, child)).isDirectory();
        } catch {
          continue;
        }
      }
      if (isDir) walk(child, depth + 1);
      else if (!source.suffix || e.name.endsWith(source.suffix)) {
        if (out.length >= MAX_DIR_FILES) {
          if (!overflow) problems.push(`${source.path} holds more than ${MAX_DIR_FILES} files, more than can be shown.`);
          overflow = true;
          return;
        }
        out.push(child);
      }
    }
  };
  walk(source.path, 0);
  return out;
}

/** The same part of the same file found through two sources (`.mcp.json` for an unknown agent) once. */
function dedupe(findings: AgentConfigFinding[]): AgentConfigFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const id = `${f.file}\0${f.where}\0${f.text}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
