/**
 * Sandbox profiles (issue 21): what a sandboxed command may touch, as part of the intent the person
 * approves. A command's intent carries the profile it will run under; the intent hash covers it, the
 * card says it in words, and the effect check refuses a terminal whose profile differs from the one
 * approved. The profile is enforced by `@anthropic-ai/sandbox-runtime` (bubblewrap + seccomp on
 * Linux, `sandbox-exec` on macOS, a filtering proxy for hosts); see `./runtime.ts`.
 *
 * Pure: no `vscode`, no file system, no library. Paths are absolute and compared as given (the
 * adapter resolves them once with `realpath`).
 */
import path from 'node:path';
import { canonicalHash } from '../policy/intent';
import { isWithin } from '../fs/containment';
import { literalHostEntry, refusedHostEntry } from './hostEntry';

/** `agentSwitchboard.sandbox`: `off` (today's terminals), `ask` (sandboxed where it can run; where it cannot, the card says so), `always` (sandboxed or not run). */
export type SandboxMode = 'off' | 'ask' | 'always';

/**
 * What a sandboxed command may touch. Every list is sorted and free of duplicates, so equal profiles
 * are equal JSON and hash equal.
 */
export interface SandboxProfile {
  /** Absolute folders the command may write in (the session's folders, its worktree, the system temp folder). Nothing else is writable. */
  writeRoots: string[];
  /** Absolute paths the command may not read (credentials, browser profiles, the editor's own storage). Everything else is readable. */
  denyRead: string[];
  /**
   * Absolute paths inside the write roots that stay read-only: what the editor, git or a shell acts
   * on by itself, without the person running anything (`.git` — an fsmonitor or hook in its config
   * runs on the next `git status` —, `.vscode`, agents' configuration, `.envrc`). Absent on profiles
   * made before this field existed.
   */
  denyWrite?: string[];
  /**
   * Hosts the command may reach through the sandbox's proxy, as `host` or `host:port` (the
   * sandbox-runtime's `allowedDomains` grammar: `*.example.com`, `[::1]:8080`). Empty: no network.
   */
  allowedHosts: string[];
  /**
   * The command sees its folders through an overlay, and what it writes there reaches them when it
   * ends, except files that run (the gate's protected classes, at any depth), which are held back
   * and listed (see `./overlay.ts`, `./carryBack.ts`). Absent: it writes straight into its folders,
   * and only the names in `denyWrite` are kept read-only — a file that runs where none exists yet
   * (`x/.git`, `node_modules/…`) can be made.
   */
  holdsBackRunnable?: true;
}

/** Where the sandbox stands for one session: off, a profile its commands run under, or why it cannot run. */
export type SandboxPlan =
  | { mode: 'off' }
  | { mode: 'ask' | 'always'; profile: SandboxProfile }
  | { mode: 'ask' | 'always'; unavailable: string };

/**
 * Paths under the home folder that hold credentials or another program's secrets: never readable
 * by a sandboxed command. Relative to the home folder, with `/` separators.
 */
export const HOME_DENY_READ: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.config/gh',
  '.kube',
  '.docker',
  '.gnupg',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.password-store',
  '.local/share/keyrings',
  'Library/Keychains',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Cookies',
  'snap/chromium',
  // Agents' and tools' own credentials and histories.
  '.codex',
  '.claude/.credentials.json',
  '.gemini',
  '.config/github-copilot',
  '.local/share/opencode',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.pgpass',
  '.vault-token',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
];

/**
 * Names that stay read-only at the top of each write root, and in its folders one level down (the
 * depth at which VS Code finds repositories): the editor, git and shells act on them by themselves.
 * `.git` and `.vscode` are protected even where they do not exist yet (the sandbox binds a
 * placeholder, removed when the command ends); the others where they exist.
 */
export const ALWAYS_DENY_WRITE: readonly string[] = ['.git', '.vscode'];
/** See {@link ALWAYS_DENY_WRITE}: protected where they exist. */
export const EXISTING_DENY_WRITE: ReadonlySet<string> = new Set([
  '.gitmodules', '.gitattributes', '.hg', '.svn', '.husky', '.githooks', '.pre-commit-config.yaml', '.lefthook.yml', 'lefthook.yml',
  '.idea', '.fleet', '.zed', '.devcontainer', '.devcontainer.json', '.claude', '.claude.json', '.codex', '.gemini', '.opencode', 'opencode.json', 'opencode.jsonc', '.cursor', '.windsurf', '.continue', '.mcp.json',
  '.envrc', '.tool-versions', 'mise.toml', '.mise.toml',
  // Shell and git settings (the sandbox library's own list): in a home folder opened as the
  // workspace, or a dotfiles repository the home folder links into, the next shell or git runs them.
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.profile', '.gitconfig', '.ripgreprc',
]);

/** What {@link buildProfile} needs: the folders and names of this machine and session. */
export interface ProfileInputs {
  /** The session's folders (the workspace folders, or its worktree), absolute and resolved. */
  roots: readonly string[];
  /** The system temp folder, resolved. */
  tmpDir: string;
  /** The person's home folder. */
  home: string;
  /** The editor's own storage (the user-data folder's `User`, the extension's storage), resolved. */
  editorStorage: readonly string[];
  /** Hosts from `agentSwitchboard.sandboxAllowedHosts` (the person's settings only). */
  allowedHosts: readonly string[];
  /** Absolute paths in the write roots that stay read-only (see {@link protectedInRoot}). */
  denyWrite?: readonly string[];
  /** Whether this machine runs the command in an overlay that holds back files that run (see {@link SandboxProfile.holdsBackRunnable}). */
  holdsBackRunnable?: boolean;
}

/**
 * The profile of a session's commands: write in its folders and the temp folder, read everything but
 * the credential paths and the editor's storage, reach only the allowed hosts. A denied path inside a
 * write root stays denied (it is hidden, so not writable either).
 */
export function buildProfile(inputs: ProfileInputs): SandboxProfile {
  const writeRoots = uniqueSorted([...inputs.roots, inputs.tmpDir].filter((p) => path.isAbsolute(p)));
  const denyRead = uniqueSorted([...HOME_DENY_READ.map((rel) => path.join(inputs.home, rel)), ...inputs.editorStorage].filter((p) => path.isAbsolute(p)));
  const denyWrite = uniqueSorted((inputs.denyWrite ?? []).filter((p) => path.isAbsolute(p)));
  return { writeRoots, denyRead, ...(denyWrite.length ? { denyWrite } : {}), allowedHosts: uniqueSorted(inputs.allowedHosts.map((h) => h.trim()).filter((h) => h !== '')), ...(inputs.holdsBackRunnable ? { holdsBackRunnable: true as const } : {}) };
}

/**
 * The paths of `root` that stay read-only for a sandboxed command (see {@link ALWAYS_DENY_WRITE}),
 * from the names at its top and one level down (`list(dir)`: the entries of a folder; folders only
 * are descended).
 */
export function protectedInRoot(root: string, list: (dir: string) => { name: string; dir: boolean }[]): string[] {
  const out: string[] = [];
  const scan = (dir: string, depth: number) => {
    const entries = list(dir);
    for (const name of ALWAYS_DENY_WRITE) out.push(path.join(dir, name));
    for (const e of entries) {
      if (EXISTING_DENY_WRITE.has(e.name)) out.push(path.join(dir, e.name));
      else if (depth === 0 && e.dir && !ALWAYS_DENY_WRITE.includes(e.name) && e.name !== 'node_modules') {
        if (entries.length <= 2000) scanChild(path.join(dir, e.name));
      }
    }
  };
  // One level down: only what exists there (no placeholders in every folder).
  const scanChild = (dir: string) => {
    for (const e of list(dir)) if (ALWAYS_DENY_WRITE.includes(e.name) || EXISTING_DENY_WRITE.has(e.name)) out.push(path.join(dir, e.name));
  };
  scan(root, 0);
  return out;
}

/**
 * The names that make a folder a repository for git's discovery (`.git`, and `HEAD` of a bare
 * one) in every folder between a writable folder and a session folder inside it (a workspace in the
 * temp folder): git looks for a repository upwards from the workspace, and runs what that one's
 * `config` names. Kept read-only like {@link ALWAYS_DENY_WRITE}.
 */
export function gitDiscoveryAbove(roots: readonly string[], writable: readonly string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    for (const w of writable) {
      if (w === root || !isWithin(w, root)) continue;
      for (let dir = path.dirname(root); isWithin(w, dir); dir = path.dirname(dir)) {
        out.push(path.join(dir, '.git'), path.join(dir, 'HEAD'));
        if (dir === w || path.dirname(dir) === dir) break;
      }
    }
  }
  return out;
}

/**
 * The folder the sandbox library looks in, to a depth of three, for what it always keeps read-only
 * (shell and git settings, each repository's hooks and config, editor settings): the session's folder
 * that holds the command's working folder (the deepest, when folders nest), else the session's first
 * folder — never the working folder itself, which the agent chooses (from a subfolder the folder's
 * own settings were not looked for), never `/` (the library's search stops after ten seconds, and
 * every command would wait for it), and the temp folder only when it is the one write root (a window
 * without a folder). The profile keeps the same names
 * read-only in the top two levels of every write root itself (`EXISTING_DENY_WRITE`), whatever this
 * finds.
 * @param cwd the command's working folder, absolute, its links resolved.
 * @param tmpDir the temp folder as the profile has it (a write root, not a session folder).
 */
export function protectionRoot(cwd: string, writeRoots: readonly string[], tmpDir: string): string {
  const sessionRoots = writeRoots.filter((r) => r !== tmpDir);
  const holding = sessionRoots.filter((r) => isWithin(r, cwd)).sort((a, b) => b.length - a.length)[0];
  const root = holding ?? sessionRoots[0] ?? writeRoots[0] ?? cwd;
  // A workspace opened at `/`: its search would run into the library's ten seconds for every command.
  const isTop = (p: string) => path.parse(p).root === p;
  return !isTop(root) ? root : !isTop(cwd) ? cwd : tmpDir;
}

/**
 * The profile with one more host (the person's "Allow host and re-run").
 * @throws Error when `host` is not one literal host (see {@link literalHostEntry}): a pattern such as
 *   `*.example.com` would allow more than the card showed.
 */
export function withHost(profile: SandboxProfile, host: string): SandboxProfile {
  const entry = literalHostEntry(host);
  if (entry === undefined) throw new Error(`${JSON.stringify(host)} is not one literal host name, so it is not allowed with one click.`);
  return { ...profile, allowedHosts: uniqueSorted([...profile.allowedHosts, entry]) };
}

/** Equal profiles: the same write roots, read denials and hosts. Absent equals only absent (an unsandboxed command). */
export function sameProfile(a: SandboxProfile | undefined, b: SandboxProfile | undefined): boolean {
  if (!a || !b) return a === b;
  return profileHash(a) === profileHash(b);
}

/** SHA-256 (hex) of the profile's canonical JSON: what a grant made from a sandboxed intent is bound to. */
export function profileHash(profile: SandboxProfile): string {
  return canonicalHash({ writeRoots: uniqueSorted(profile.writeRoots), denyRead: uniqueSorted(profile.denyRead), ...(profile.denyWrite?.length ? { denyWrite: uniqueSorted(profile.denyWrite) } : {}), allowedHosts: uniqueSorted(profile.allowedHosts), ...(profile.holdsBackRunnable ? { holdsBackRunnable: true } : {}) });
}

/**
 * The profile in words, one sentence, for a card: "Sandboxed: can write only in /w and /tmp; no
 * network; cannot read 24 credential and browser folders." `home` shortens paths under it to `~`.
 */
export function describeProfile(profile: SandboxProfile, home?: string): string {
  const short = (p: string) => (home && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p);
  const writes = profile.writeRoots.map(short);
  const where = writes.length ? `can write only in ${joinWords(writes)}` : 'can write nowhere';
  const net = profile.allowedHosts.length ? `network only to ${joinWords(profile.allowedHosts)}` : 'no network';
  const names = [...new Set((profile.denyWrite ?? []).map((p) => path.basename(p)))];
  const kept = profile.holdsBackRunnable
    ? ' (its changes reach them when it ends; files that tools run — .git, node_modules, .venv, settings, build files — are held back at any depth and listed)'
    : names.length
      ? ` and cannot change ${joinWords(names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} more that the editor, git or a shell act on`] : names)}`
      : '';
  const notHeld = profile.holdsBackRunnable ? '' : ' It can still create files that tools run where none exist yet (a new x/.git, node_modules/…): this machine cannot hold them back.';
  return `Sandboxed when the editor runs it: ${where}${kept}; ${net}; cannot read ${profile.denyRead.length} credential, browser and editor folders (~/.ssh, ~/.aws, …).${notHeld} An agent that runs commands itself is not sandboxed by this.`;
}

/** The sentence a card shows for a plan that has no profile. Undefined when the sandbox is off. */
export function describeUnsandboxed(plan: SandboxPlan): string | undefined {
  if (plan.mode === 'off' || 'profile' in plan) return undefined;
  return plan.mode === 'always'
    ? `Will not run: the sandbox is not available (${plan.unavailable}), and agentSwitchboard.sandbox is "always".`
    : `Not sandboxed: the sandbox is not available (${plan.unavailable}). The command can read, write and reach what you can.`;
}

/**
 * Hosts the sandbox's proxy refused a command because they were not on its allow list, from the
 * command's violation lines (`deny network-outbound 127.0.0.1:39719 (host is not on the allow list)`
 * → `127.0.0.1:39719`): what its card offers to allow. Only whole lines of that form, and only hosts
 * that are one literal host by {@link literalHostEntry} (the command chose them: a refused
 * `*.amazonaws.com`, a malformed host or an IPv6 literal is never offered). At most 8, in order, unique.
 */
export function blockedHosts(violations: string): string[] {
  const out: string[] = [];
  for (const line of violations.split('\n')) {
    const m = /^deny network-outbound (\S+):([0-9]+) \(host is not on the allow list\)$/.exec(line.trim());
    const entry = m ? refusedHostEntry(m[1], m[2]) : undefined;
    if (entry !== undefined && !out.includes(entry)) out.push(entry);
    if (out.length >= 8) break;
  }
  return out;
}

/** How a change the overlay held back (a file that runs) starts its line among a command's sandbox lines. */
export const HELD_BACK_LINE = 'held back, not applied: ';

/**
 * How many changes the overlay held back, from the sandbox's own lines for a command (never its
 * output, which the command controls): one {@link HELD_BACK_LINE} line each, names escaped onto one line.
 */
export function heldBackCount(sandboxLines: string): number {
  return sandboxLines.split('\n').filter((l) => l.startsWith(HELD_BACK_LINE)).length;
}

function uniqueSorted(xs: readonly string[]): string[] {
  return [...new Set(xs)].sort();
}

function joinWords(xs: readonly string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
