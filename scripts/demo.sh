#!/usr/bin/env bash
# THE demo (`npm run demo`): builds + packages the extension, installs the VSIX into a local
# code-server (a real VS Code in the browser), opens a demo workspace, prints the URL and keeps
# serving in the foreground until Ctrl-C.
#
# usage: bash scripts/demo.sh [--check|--no-open] [--screenshot FILE] [--port N] [--workspace DIR]
#   --check, --no-open   start, check /healthz, the workbench page and `--list-extensions`, then stop
#                        (exit 0 = ok, 1 = not ok). Uses a free port unless --port/PORT is given.
#   --screenshot FILE    once up, save a PNG of the workbench with the Agent Switchboard view open
#                        (scripts/screenshot.mjs); in --check mode a failed screenshot fails the check
#   --port N             port on 127.0.0.1 (default $PORT, else 8080)
#   --workspace DIR      folder to open (default $SWITCHBOARD_DEMO_WORKSPACE, else ~/agent-switchboard-demo;
#                        created with a README.md and a small src file if missing)
# State (user settings, installed extensions, logs) persists in $SWITCHBOARD_DEMO_HOME
# (default ~/.cache/agent-switchboard/demo). Tools come from scripts/setup-tools.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

MODE=serve; SHOT=""; PORT_ARG=""; WS_ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check|--no-open) MODE=check ;;
    --screenshot) SHOT=${2:?--screenshot needs a file}; shift ;;
    --screenshot=*) SHOT=${1#*=} ;;
    --port) PORT_ARG=${2:?--port needs a number}; shift ;;
    --port=*) PORT_ARG=${1#*=} ;;
    --workspace) WS_ARG=${2:?--workspace needs a dir}; shift ;;
    --workspace=*) WS_ARG=${1#*=} ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo: unknown argument $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done
[ -n "$SHOT" ] && SHOT=$(realpath -m "$SHOT")

STATE=${SWITCHBOARD_DEMO_HOME:-$HOME/.cache/agent-switchboard/demo}
WS=$(realpath -m "${WS_ARG:-${SWITCHBOARD_DEMO_WORKSPACE:-$HOME/agent-switchboard-demo}}")
say() { echo "[demo] $*"; }

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
if [ -n "$PORT_ARG" ]; then PORT=$PORT_ARG
elif [ -n "${PORT:-}" ]; then :
elif [ "$MODE" = check ]; then PORT=$(free_port)
else PORT=8080; fi
if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; then
  echo "demo: something already listens on 127.0.0.1:$PORT (another demo?). Stop it or use --port N / PORT=N." >&2
  exit 1
fi

say "tools"
TOOLS_ENV=$(bash scripts/setup-tools.sh)   # an assignment, so a failure stops us
eval "$TOOLS_ENV"
# Everything below runs on the Node 24 that code-server needs anyway: the build tools (vsce and its
# dependencies) require Node >= 22, and npm on an older Node prints a block of EBADENGINE warnings
# for each of them. npm's own script starts with `#!/usr/bin/env node`, so PATH picks it too.
export PATH="$(dirname "$NODE24"):$PATH"
say "node $(node -v), npm $(npm -v)"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then say "npm ci"; npm ci --no-audit --no-fund; fi
say "build + package"
npm run -s build
rm -f dist/agent-switchboard.vsix
npm run -s package </dev/null | sed 's/\x1b\[[0-9;]*m//g' | grep -E 'DONE|WARN|ERROR' || true
[ -f dist/agent-switchboard.vsix ] || { echo "demo: packaging failed (no dist/agent-switchboard.vsix)" >&2; exit 1; }

mkdir -p "$STATE/user-data/User" "$STATE/extensions"
printf 'auth: none\ncert: false\n' > "$STATE/config.yaml"
CS=("$NODE24" "$CODE_SERVER_ENTRY" --config "$STATE/config.yaml" --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions")
cs() { XDG_CONFIG_HOME=$STATE/xdg-config XDG_DATA_HOME=$STATE/xdg-data XDG_CACHE_HOME=$STATE/xdg-cache "${CS[@]}" "$@"; }
EXT_ID=$(node -p "const p=require('./package.json'); (p.publisher+'.'+p.name).toLowerCase()")
say "install dist/agent-switchboard.vsix into $STATE/extensions"
cs --install-extension "$ROOT/dist/agent-switchboard.vsix" --force

# user settings: quiet workbench, our view front and centre (only written once; edit freely after)
SETTINGS=$STATE/user-data/User/settings.json
if [ ! -f "$SETTINGS" ]; then
  cat > "$SETTINGS" <<'EOF'
{
  "workbench.startupEditor": "readme",
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "workbench.tips.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "security.workspace.trust.enabled": false
}
EOF
fi

bash scripts/demo-workspace.sh "$WS"

LOG=$STATE/code-server.log
say "starting code-server on 127.0.0.1:$PORT (log: $LOG)"
XDG_CONFIG_HOME=$STATE/xdg-config XDG_DATA_HOME=$STATE/xdg-data XDG_CACHE_HOME=$STATE/xdg-cache \
  setsid "${CS[@]}" --bind-addr "127.0.0.1:$PORT" --auth none \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$WS" > "$LOG" 2>&1 < /dev/null &
CS_PID=$!
stop() {
  kill -TERM -- "-$CS_PID" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$CS_PID" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL -- "-$CS_PID" 2>/dev/null || true
}
trap 'stop' EXIT
trap 'echo; say "stopping code-server"; exit 130' INT TERM HUP

up=""
for _ in $(seq 1 240); do
  if curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/healthz"; then up=1; break; fi
  kill -0 "$CS_PID" 2>/dev/null || break
  sleep 0.25
done
if [ -z "$up" ]; then echo "demo: code-server did not come up; last log lines:" >&2; tail -30 "$LOG" >&2; exit 1; fi

URL="http://127.0.0.1:$PORT/?folder=$(node -p 'encodeURIComponent(process.argv[1]).replace(/%2F/g, "/")' "$WS")"
echo
echo "  Agent Switchboard demo is running: $URL"
echo "  Open the \"Agent Switchboard\" activity bar item and pick \"Offline demo agent\" (works with no API key)."
echo

SHOT_RC=0
if [ -n "$SHOT" ]; then
  node scripts/screenshot.mjs "$URL" "$SHOT" || SHOT_RC=$?
fi

if [ "$MODE" = check ]; then
  ok=1
  if curl -sf -o /dev/null --max-time 5 "http://127.0.0.1:$PORT/healthz"; then echo "check: /healthz ok"; else echo "check: /healthz failed"; ok=""; fi
  PAGE=$(curl -sf --max-time 20 "$URL" || true)   # (not piped into grep -q: SIGPIPE + pipefail)
  if grep -q 'workbench' <<<"$PAGE"; then echo "check: workbench page served"; else echo "check: workbench page NOT served"; ok=""; fi
  LISTED=$(cs --list-extensions 2>/dev/null || true)
  if grep -qix "$EXT_ID" <<<"$LISTED"; then echo "check: $EXT_ID is installed"; else echo "check: $EXT_ID NOT listed by --list-extensions"; ok=""; fi
  [ "$SHOT_RC" -eq 0 ] || { echo "check: screenshot failed"; ok=""; }
  if [ -n "$ok" ]; then echo "demo check: OK"; exit 0; else echo "demo check: FAILED (log: $LOG)"; exit 1; fi
fi

echo "  Press Ctrl-C to stop."
set +e
wait "$CS_PID"
rc=$?
set -e
echo "demo: code-server exited ($rc); log: $LOG" >&2
exit "$rc"
