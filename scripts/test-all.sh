#!/usr/bin/env bash
# THE test command (`npm test`). Steps:
#   tools (scripts/setup-tools.sh: chromium, Node 24, code-server, cached outside the repo)
#   build (npm run build:tests) -> typecheck -> lint (when an eslint config exists)
#   unit + ACP tests (npx mocha, .mocharc.json)
#   package the VSIX (npm run package) -> install it into a fresh code-server extensions dir
#   in-editor tests (test/integration, out/test/integration/index.js) against the INSTALLED extension
#     in a real VS Code (code-server + headless chromium), screenshots into media/screenshots/
#   further windows, each a run of its own: after a reload, the extension host killed, an untrusted
#     workspace, and the README window (test/integration/readme/, out/test/integration/readme/index.js:
#     fresh user data, browser profile and project, 1600x1000, default layout), which retakes the
#     README's pictures, media/screenshots/readme-*.png
#   last line: "N passed, N failed" (unit + in-editor); exit status non-zero when anything failed.
# env: SWITCHBOARD_SCREENSHOT_DIR      where in-editor screenshots go (default media/screenshots)
#      SWITCHBOARD_TEST_TIMEOUT        in-editor run timeout in seconds (default 1800: the main window took 690-760 s on a slow day)
#      SWITCHBOARD_SKIP_EDITOR_TESTS=1 skip packaging + in-editor tests (quick local loop)
#      SWITCHBOARD_TEST_GREP           only in-editor tests whose title matches (regexp)
#      SWITCHBOARD_EDITOR_ONLY=1       skip the unit tests and the further windows (reload, host kill,
#                                      untrusted, README): a quick loop over one in-editor test with the grep
#      SWITCHBOARD_README_ONLY=1       run only the README window (no unit tests, no main window, no other
#                                      further window): retakes media/screenshots/readme-*.png in ~1-2 min
#      KEEP_TEST_TMP=1                 keep the temp work dir (logs, extensions dir)
# Work dirs live under ${TMPDIR:-/tmp} and are removed at the end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
T0=$(date +%s)
STEP=start
step() { STEP=$*; echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-test-all.XXXXXX")
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ "$STEP" != done ]; then echo "test-all: FAILED during step '$STEP' (exit $rc)" >&2; fi
  if [ -n "${KEEP_TEST_TMP:-}" ]; then echo "test-all: work dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap on_exit EXIT
# Every failed test, a line each, repeated at the end of the output (CI shows only its tail).
FAILED_LIST=$WORK/failed-tests.txt
: > "$FAILED_LIST"
# The demo agent's remembered sessions (session/list, session/load) in this run's own folder: a
# machine's earlier runs and benches (2 GB of them here once) are not this run's to list.
export SWITCHBOARD_DEMO_STATE_DIR=$WORK/demo-sessions

step "tools (scripts/setup-tools.sh)"
TOOLS_ENV=$(bash scripts/setup-tools.sh)   # an assignment, so a failure stops us (eval "$(...)" would not)
eval "$TOOLS_ENV"
echo "node24: $("$NODE24" -v)  code-server: $("$NODE24" "$CODE_SERVER_ENTRY" --version 2>/dev/null | tail -1 | cut -d' ' -f1)  chromium: $CHROMIUM"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci (node_modules missing or older than package-lock.json)"
  npm ci --no-audit --no-fund
fi

step "build (npm run build:tests)"
npm run -s build:tests

step "typecheck"
npm run -s typecheck

if compgen -G 'eslint.config.*' >/dev/null || compgen -G '.eslintrc*' >/dev/null; then
  step "lint"
  npm run -s lint
else
  echo "(no eslint config: lint skipped)"
fi

# --- unit + ACP tests (mocha, plain Node): counts are read from the spec reporter's epilogue
UNIT_PASSED=0; UNIT_FAILED=0; UNIT_SKIPPED=0
if [ -n "${SWITCHBOARD_EDITOR_ONLY:-}" ] || [ -n "${SWITCHBOARD_README_ONLY:-}" ]; then
  echo; echo "(SWITCHBOARD_EDITOR_ONLY or SWITCHBOARD_README_ONLY set: unit tests skipped)"
else
step "unit + ACP tests (npx mocha)"
MOCHA_ARGS=(--color=false)
[ -n "${CI:-}" ] && MOCHA_ARGS+=(--forbid-only)
set +e
NO_COLOR=1 npx mocha "${MOCHA_ARGS[@]}" 2>&1 | tee "$WORK/mocha.log"   # NO_COLOR: mocha colours CI logs despite --color=false
MOCHA_RC=${PIPESTATUS[0]}
set -e
count() { # count <word> <file>: last "N <word>" of mocha's epilogue, 0 if none
  sed 's/\x1b\[[0-9;]*m//g' "$2" | grep -Eo "^ *[0-9]+ $1( |\$)" | tail -1 | grep -Eo '[0-9]+' || echo 0
}
UNIT_PASSED=$(count passing "$WORK/mocha.log")
UNIT_FAILED=$(count failing "$WORK/mocha.log")
UNIT_SKIPPED=$(count pending "$WORK/mocha.log")
if [ "$MOCHA_RC" -ne 0 ] && [ "$UNIT_FAILED" -eq 0 ]; then
  echo "mocha exited with $MOCHA_RC without reporting failing tests (load error?): counted as 1 failure"
  UNIT_FAILED=1
fi
# mocha's epilogue: "  1) suite" then the test's title and the error's first line
sed 's/\x1b\[[0-9;]*m//g' "$WORK/mocha.log" | awk '
  /^ *[0-9]+ failing/ { f = 1; next }
  f && /^  [0-9]+\) / { t = $0; getline a; b = ""; while ((getline b) > 0 && b ~ /^ *$/) {}; gsub(/^ +/, "", a); gsub(/^ +/, "", b); sub(/^  [0-9]+\) /, "", t); print "  [unit] " t " " a " " substr(b, 1, 300) }
' >> "$FAILED_LIST" || true
if [ "$UNIT_FAILED" -gt 0 ] && ! grep -q '^  \[unit\]' "$FAILED_LIST"; then echo "  [unit] mocha exited with $MOCHA_RC (see its output above)" >> "$FAILED_LIST"; fi
echo "unit: $UNIT_PASSED passed, $UNIT_FAILED failed (mocha exit $MOCHA_RC)"
fi

EDITOR_PASSED=0; EDITOR_FAILED=0
# failed_lines <label> <result file> <runner exit>: the run's failed tests into FAILED_LIST
failed_lines() {
  local before
  before=$(wc -l < "$FAILED_LIST")
  [ -f "$2" ] && sed -n "s/^failed: /  [$1] /p" "$2" >> "$FAILED_LIST"
  if [ "$3" -ne 0 ] && [ "$(wc -l < "$FAILED_LIST")" -eq "$before" ]; then
    echo "  [$1] the runner exited with $3 (2 = its timeout) before the suite reported a failed test: the last test it started is in its output above" >> "$FAILED_LIST"
  fi
}
if [ -n "${SWITCHBOARD_SKIP_EDITOR_TESTS:-}" ]; then
  echo; echo "(SWITCHBOARD_SKIP_EDITOR_TESTS set: VSIX + in-editor tests skipped)"
else
  step "package (npm run package)"
  VSIX=$ROOT/dist/agent-switchboard.vsix
  rm -f "$VSIX"
  npm run -s package </dev/null | sed "s/\x1b\[[0-9;]*m//g"
  ls -l "$VSIX"

  step "install the VSIX into a fresh code-server extensions dir"
  EXTDIR=$WORK/extensions
  printf 'auth: none\ncert: false\n' > "$WORK/code-server.yaml"
  CS=("$NODE24" "$CODE_SERVER_ENTRY" --config "$WORK/code-server.yaml" --user-data-dir "$WORK/user-data" --extensions-dir "$EXTDIR")
  XDG_CONFIG_HOME=$WORK/xdg-config XDG_DATA_HOME=$WORK/xdg-data "${CS[@]}" --install-extension "$VSIX"
  XDG_CONFIG_HOME=$WORK/xdg-config XDG_DATA_HOME=$WORK/xdg-data "${CS[@]}" --list-extensions --show-versions
  EXT_DIRNAME=$(node -p "const p=require('./package.json'); (p.publisher+'.'+p.name).toLowerCase()+'-'+p.version")
  INSTALLED=$EXTDIR/$EXT_DIRNAME
  [ -f "$INSTALLED/package.json" ] || { echo "installed extension not found at $INSTALLED"; ls -la "$EXTDIR"; exit 1; }
  echo "installed at $INSTALLED"
  # every file the manifest points at must have made it into the VSIX (.vscodeignore mistakes)
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1], p = require(path.join(dir, "package.json")), c = p.contributes || {};
    const refs = [p.main, p.browser, p.icon];
    const icons = i => { if (typeof i === "string") refs.push(i); else if (i) refs.push(i.light, i.dark); };
    for (const list of Object.values(c.viewsContainers || {})) for (const v of list) icons(v.icon);
    for (const list of Object.values(c.views || {})) for (const v of list) icons(v.icon);
    for (const cmd of [].concat(c.commands || [])) icons(cmd.icon);
    const missing = refs.filter(Boolean).filter(r => !/\$\(/.test(r))
      .map(r => r.replace(/^\.\//, "")).filter(r => !fs.existsSync(path.join(dir, r)) && !fs.existsSync(path.join(dir, r + ".js")));
    if (missing.length) { console.error("files referenced by package.json but missing from the VSIX: " + missing.join(", ") + " (see .vscodeignore)"); process.exit(1); }
    console.log("VSIX contains every file package.json references");
  ' "$INSTALLED"

  SHOTS=${SWITCHBOARD_SCREENSHOT_DIR:-$ROOT/media/screenshots}
  mkdir -p "$SHOTS"
  if [ -n "${SWITCHBOARD_README_ONLY:-}" ]; then
    echo; echo "(SWITCHBOARD_README_ONLY set: the main window is skipped)"
  else
  step "in-editor tests (real VS Code: code-server + headless chromium)"
  WS=$WORK/workspace
  if [ -d test/fixtures/workspace ]; then cp -r test/fixtures/workspace "$WS"; else mkdir -p "$WS"; printf '# Test workspace\n' > "$WS/README.md"; fi
  set +e
  SWITCHBOARD_TEST_RESULT_FILE=$WORK/editor-result.txt node scripts/run-vscode-tests.mjs \
    --extensionDevelopmentPath "$INSTALLED" \
    --extensionTestsPath "$ROOT/out/test/integration/index" \
    --extensions-dir "$EXTDIR" --workspace "$WS" --user-data-dir "$WORK/user-data" \
    --screenshot-dir "$SHOTS" --timeout "${SWITCHBOARD_TEST_TIMEOUT:-1800}"
  EDITOR_RC=$?
  set -e
  if [ -f "$WORK/editor-result.txt" ]; then
    read -r EDITOR_PASSED EDITOR_FAILED < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$WORK/editor-result.txt" | tail -1) || true
  fi
  EDITOR_PASSED=${EDITOR_PASSED:-0}; EDITOR_FAILED=${EDITOR_FAILED:-0}
  if [ "$EDITOR_RC" -ne 0 ] && [ "$EDITOR_FAILED" -eq 0 ]; then
    echo "in-editor runner exited with $EDITOR_RC (2 = timeout) without reporting failing tests: counted as 1 failure"
    EDITOR_FAILED=1
  fi
  failed_lines "main window" "$WORK/editor-result.txt" "$EDITOR_RC"
  echo "in-editor: $EDITOR_PASSED passed, $EDITOR_FAILED failed (runner exit $EDITOR_RC); screenshots in ${SHOTS#"$ROOT"/}"
  fi

  # A further run of the in-editor suite (one grep, own result file), its counts added to the total:
  #   extra_run <label> <result file> <runner args...>   (env for the run set by the caller;
  #   EXTRA_TESTS: another suite's entry point instead of the main window's)
  extra_run() {
    local label=$1 result=$2; shift 2
    local rc passed=0 failed=0
    set +e
    SWITCHBOARD_TEST_RESULT_FILE=$result node scripts/run-vscode-tests.mjs \
      --extensionDevelopmentPath "$INSTALLED" --extensionTestsPath "${EXTRA_TESTS:-$ROOT/out/test/integration/index}" \
      --extensions-dir "$EXTDIR" --timeout 300 "$@"
    rc=$?
    set -e
    if [ -f "$result" ]; then
      read -r passed failed < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' "$result" | tail -1) || true
    fi
    passed=${passed:-0}; failed=${failed:-0}
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
    if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then echo "$label run executed no test: counted as 1 failure"; failed=1; fi
    failed_lines "$label" "$result" "$rc"
    echo "in-editor ($label): $passed passed, $failed failed (runner exit $rc)"
    EDITOR_PASSED=$(( EDITOR_PASSED + passed )); EDITOR_FAILED=$(( EDITOR_FAILED + failed ))
  }

  if [ -n "${SWITCHBOARD_EDITOR_ONLY:-}" ]; then
    echo; echo "(SWITCHBOARD_EDITOR_ONLY set: the further windows are skipped)"
  elif [ -n "${SWITCHBOARD_README_ONLY:-}" ]; then
    echo; echo "(SWITCHBOARD_README_ONLY set: only the README window runs)"
  else
  step "in-editor tests after a window reload (same workspace and storage, a new window)"
  SWITCHBOARD_RELOAD_PHASE=1 SWITCHBOARD_TEST_GREP='after a window reload' extra_run "after reload" "$WORK/reload-result.txt" \
    --workspace "$WS" --user-data-dir "$WORK/user-data" --screenshot-dir "$SHOTS"

  step "in-editor tests: the extension host killed (SIGKILL) mid-turn, then started again"
  # Two windows on a workspace and storage of their own: in the first the test kills its own
  # extension host mid-turn (VS Code ends a test run when its host dies, so that run reports
  # nothing: the note it leaves is checked instead); the second finds the session, its transcript,
  # a valid audit chain and no agent left behind (93-host-kill.test.ts). Both windows share one
  # browser profile, as after a restart on the same machine: code-server keeps SecretStorage (the
  # audit log's signing key) in the browser, and a new profile would be a new machine.
  KWS=$WORK/kill-workspace; KDIR=$WORK/host-kill
  mkdir -p "$KWS" "$KDIR"; printf '# Host kill\n' > "$KWS/README.md"
  set +e
  SWITCHBOARD_HOST_KILL_DIR=$KDIR SWITCHBOARD_TEST_GREP='extension host killed mid-turn' SWITCHBOARD_TEST_RESULT_FILE=$WORK/kill-first-result.txt \
    node scripts/run-vscode-tests.mjs --extensionDevelopmentPath "$INSTALLED" --extensionTestsPath "$ROOT/out/test/integration/index" \
    --extensions-dir "$EXTDIR" --timeout 300 --workspace "$KWS" --user-data-dir "$WORK/kill-user-data" --browser-profile "$WORK/kill-browser" 2>&1 | grep -v '^\s*at \|reconnection token'
  set -e
  # A host that was killed reports nothing: a result file would mean the first window ran to its end.
  if [ -f "$KDIR/killed.json" ] && [ ! -f "$WORK/kill-first-result.txt" ]; then
    echo "first window: the test killed its extension host mid-turn ($(cat "$KDIR/killed.json" | head -c 200)…)"
    SWITCHBOARD_HOST_KILL_DIR=$KDIR SWITCHBOARD_TEST_GREP='extension host killed mid-turn' extra_run "host killed, second window" "$WORK/kill-result.txt" \
      --workspace "$KWS" --user-data-dir "$WORK/kill-user-data" --browser-profile "$WORK/kill-browser"
  else
    echo "in-editor (host killed): the first window never reached the kill: counted as 1 failure"
    EDITOR_FAILED=$(( EDITOR_FAILED + 1 ))
  fi

  step "in-editor tests in an untrusted workspace (Workspace Trust on, restricted mode)"
  # The folder defines an agent of its own; in restricted mode nothing may be launched from it.
  UWS=$WORK/untrusted-workspace
  mkdir -p "$UWS/.vscode"
  cat > "$UWS/.vscode/settings.json" <<'JSON'
{
  "agentSwitchboard.agents": [{ "id": "workspace-agent", "name": "Agent from the workspace", "command": "/bin/sh", "args": ["-c", "touch LAUNCHED_FROM_WORKSPACE_CONFIG"] }],
  "agentSwitchboard.policy": { "write": "allow", "command": "allow" }
}
JSON
  SWITCHBOARD_UNTRUSTED=1 SWITCHBOARD_TEST_GREP='untrusted workspace' extra_run "untrusted" "$WORK/untrusted-result.txt" \
    --workspace "$UWS" --untrusted
  fi

  if [ -z "${SWITCHBOARD_EDITOR_ONLY:-}" ]; then
  step "README pictures (a fresh window: clean profile, small project, default layout)"
  # The README's pictures come from a window of their own, not from the main suite's mid-test
  # shots: fresh user data, browser profile and workspace (a small project), so no view shows an
  # earlier test's turns; test/integration/readme/ sets 1600x1000 and keeps VS Code's default layout.
  RWS=$WORK/readme-workspace
  mkdir -p "$RWS/src" "$RWS/test"
  cat > "$RWS/README.md" <<'MD'
# greeter

A tiny library that greets people by name.

    npm test
MD
  cat > "$RWS/package.json" <<'JSON'
{
  "name": "greeter",
  "version": "1.0.0",
  "type": "module",
  "main": "src/greet.js",
  "scripts": { "test": "node --test" }
}
JSON
  cat > "$RWS/src/greet.js" <<'JS'
/** Returns a greeting for `name`. */
export function greet(name) {
  return `Hello, ${name}!`;
}
JS
  cat > "$RWS/test/greet.test.js" <<'JS'
import assert from 'node:assert';
import test from 'node:test';
import { greet } from '../src/greet.js';

test('greets by name', () => assert.strictEqual(greet('Ada'), 'Hello, Ada!'));
JS
  EXTRA_TESTS=$ROOT/out/test/integration/readme/index SWITCHBOARD_TEST_GREP='' extra_run "README pictures" "$WORK/readme-result.txt" \
    --workspace "$RWS" --user-data-dir "$WORK/readme-user-data" --browser-profile "$WORK/readme-browser" --screenshot-dir "$SHOTS" --timeout 180
  fi
fi

STEP=done
PASSED=$(( UNIT_PASSED + EDITOR_PASSED ))
FAILED=$(( UNIT_FAILED + EDITOR_FAILED ))
if [ -s "$FAILED_LIST" ]; then echo; echo "=== failed tests"; cat "$FAILED_LIST"; fi
echo
echo "=== [$(( $(date +%s) - T0 ))s] unit: $UNIT_PASSED passed, $UNIT_FAILED failed, $UNIT_SKIPPED pending; in-editor: $EDITOR_PASSED passed, $EDITOR_FAILED failed"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
