#!/usr/bin/env bash
# The demo's workspace (scripts/demo.sh): a folder with a README and a small source file, made a git
# repository with a first commit, so worktrees and Send to Several Agents work from the start.
# A demo workspace made before it was a repository becomes one; any other folder is left as it is.
# usage: bash scripts/demo-workspace.sh DIR
set -euo pipefail
WS=${1:?usage: demo-workspace.sh DIR}
MARK='# Agent Switchboard demo workspace'
if [ ! -d "$WS" ] || [ -z "$(ls -A "$WS")" ]; then
  echo "[demo] creating demo workspace $WS"
  mkdir -p "$WS/src"
  cat > "$WS/README.md" <<'EOF'
# Agent Switchboard demo workspace

A tiny project to try Agent Switchboard on.

1. Open the **Agent Switchboard** item in the activity bar (left edge).
2. Pick **Offline demo agent** (no API key needed) and start a session.
3. Ask it to create a file, for example "create notes/todo.md with a list" (a script, not a
   model: it writes the file your prompt names, or demo/hello.md, and runs one shell command),
   and watch the streamed answer, the tool calls, the permission prompts and the proposed edit.

Real agents (Claude Code, Codex, Gemini CLI, OpenCode, any ACP agent) can be picked the same way
once they are installed and configured.
EOF
  cat > "$WS/src/greet.ts" <<'EOF'
export function greet(name: string): string {
  return `Hello, ${name}!`;
}

console.log(greet('world'));
EOF
fi


# Ours (its README says so) and not yet a repository: make it one, with a first commit.
if [ -f "$WS/README.md" ] && [ "$(head -1 "$WS/README.md")" = "$MARK" ] && [ ! -e "$WS/.git" ]; then
  if command -v git >/dev/null; then
    git -C "$WS" init -q
    git -C "$WS" add -A
    git -C "$WS" -c user.name='Agent Switchboard demo' -c user.email='demo@agent-switchboard.invalid' -c commit.gpgsign=false commit -q -m 'The demo workspace'
    echo "[demo] the demo workspace is a git repository with a first commit (worktrees need one)"
  else
    echo "[demo] git was not found: the demo workspace is not a repository, so worktrees and Send to Several Agents are refused" >&2
  fi
fi
