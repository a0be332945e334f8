// Mid-test screenshots of the whole workbench, taken by the runner (scripts/run-vscode-tests.mjs
// --screenshot-dir DIR, which sets SWITCHBOARD_SCREENSHOT_DIR for the extension host).
// Protocol: we write DIR/<name>.request; the runner polls DIR every ~250 ms, writes DIR/<name>.started
// when it takes the request up (one at a time), saves DIR/<name>.png with Playwright and deletes the
// request (or writes DIR/<name>.error if it could not). Waits count from `.started` (RunnerWait).
// Without SWITCHBOARD_SCREENSHOT_DIR this is a no-op that returns undefined, so tests can always call it.
// Webview content renders asynchronously and its DOM is not reachable from the extension host: pass
// `{ waitForSelector: '#app .message' }` (any Playwright selector, searched in every frame, webview
// iframes included) and the runner waits for it before the shot, or fails the call if it never shows.
import * as fs from 'fs';
import * as path from 'path';

export interface ScreenshotOptions {
  /** Playwright selector that must be visible in some frame (e.g. the webview) before the shot. */
  waitForSelector?: string;
  /** Drag the side bar to this width (CSS pixels) before the shot. */
  sidebarWidth?: number;
}

export async function screenshot(name: string, timeoutMs = 20000, options: ScreenshotOptions = {}): Promise<string | undefined> {
  const dir = process.env.SWITCHBOARD_SCREENSHOT_DIR;
  if (!dir) return undefined;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'screenshot';
  fs.mkdirSync(dir, { recursive: true });
  const png = path.join(dir, `${safe}.png`);
  const request = path.join(dir, `${safe}.request`);
  const error = path.join(dir, `${safe}.error`);
  for (const f of [png, error]) fs.rmSync(f, { force: true });
  writeWhole(request, JSON.stringify({ name, requestedAt: new Date().toISOString(), waitForSelector: options.waitForSelector, sidebarWidth: options.sidebarWidth, timeoutMs }) + '\n');
  const wait = new RunnerWait(dir, safe, timeoutMs);
  while (wait.pending()) {
    if (fs.existsSync(error)) {
      const msg = fs.readFileSync(error, 'utf8');
      fs.rmSync(error, { force: true });
      throw new Error(`screenshot '${safe}' failed: ${msg}`);
    }
    // the runner deletes the request only after the PNG is completely written
    if (!fs.existsSync(request) && fs.existsSync(png)) return png;
    await new Promise((r) => setTimeout(r, 100));
  }
  fs.rmSync(request, { force: true });
  throw new Error(`screenshot '${safe}' not taken: ${wait.why()} (is the runner started with --screenshot-dir?)`);
}

/** What the runner may spend on a request beyond its own wait (scripts/run-vscode-tests.mjs `REQUEST_WORK_MS`). */
const RUNNER_WORK_MS = 15_000;
/** How long a request may wait for the runner to start it: it handles requests one at a time. */
const RUNNER_QUEUE_MS = 90_000;

/**
 * The test's side of one runner request's time. The runner writes `<name>.started` when it takes the
 * request up and answers every request within `timeoutMs + RUNNER_WORK_MS` of that (with the result
 * or an error), so the test counts its wait from the start, not from when it asked: an earlier request
 * still in the runner's hands (one a test gave up on, a slow shot under load) does not use up this
 * one's time. Before the start, the request may wait `RUNNER_QUEUE_MS` in the queue.
 */
class RunnerWait {
  private readonly asked = Date.now();
  private startedAt: number | undefined;
  constructor(private readonly dir: string, private readonly name: string, private readonly timeoutMs: number, private readonly startedMarker = 'started') {}

  /** True while an answer may still come; notes the start when the runner's marker appears. */
  pending(): boolean {
    const now = Date.now();
    if (this.startedAt === undefined && fs.existsSync(path.join(this.dir, `${this.name}.${this.startedMarker}`))) this.startedAt = now;
    if (this.startedAt === undefined) return now < this.asked + RUNNER_QUEUE_MS + this.timeoutMs;
    return now < this.startedAt + this.timeoutMs + RUNNER_WORK_MS + 2_000;
  }

  /** True once the runner has taken the request up. */
  started(): boolean {
    this.pending();
    return this.startedAt !== undefined;
  }

  /** Why no answer came, for the failure message. */
  why(): string {
    return this.startedAt === undefined
      ? `the runner did not take the request up within ${Date.now() - this.asked} ms`
      : `no answer ${Date.now() - this.startedAt} ms after the runner took it up (${this.timeoutMs} ms asked)`;
  }
}

/**
 * Clicks the first element matching a Playwright `selector` in any frame (the sidebar webview
 * included), through the runner, as a person would. Resolves once clicked; throws if the element
 * never shows. Without SWITCHBOARD_SCREENSHOT_DIR (no runner) it throws: such tests need the runner.
 */
export async function click(selector: string, timeoutMs = 20000): Promise<void> {
  await runnerRequest({ click: selector }, timeoutMs);
}

/**
 * Presses `key` (Playwright's names, e.g. `Control+Shift+Alt+Y`) as a person would, after putting
 * the focus on `focus` (a Playwright selector, in any frame) when given. Throws without the runner.
 */
export async function press(key: string, focus?: string, timeoutMs = 20000): Promise<void> {
  await runnerRequest({ press: key, focus }, timeoutMs);
}

/**
 * Types `text` key by key as a person would, into `focus` (a Playwright selector, in any frame)
 * after putting the focus there. Throws without the runner.
 */
export async function typeText(text: string, focus: string, timeoutMs = 20000): Promise<void> {
  await runnerRequest({ type: text, focus }, timeoutMs);
}

/**
 * A timing probe through the runner: resolves with the epoch milliseconds at which `selector`
 * became visible in some frame. `start` runs once the runner is watching (so nothing shows before
 * it looks). Polls every 20 ms; with `hurryWhen`, every 250 ms until it first returns true (checked
 * every 10 ms), for a probe that would otherwise take the CPUs it measures (PF10). Throws without
 * the runner.
 */
export async function timeUntilVisible(selector: string, start: () => void, timeoutMs = 120_000, hurryWhen?: () => boolean): Promise<number> {
  const dir = process.env.SWITCHBOARD_SCREENSHOT_DIR;
  if (!dir) throw new Error('timeUntilVisible() needs the test runner (SWITCHBOARD_SCREENSHOT_DIR is not set)');
  const name = `wait-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const files = ['request', 'waiting', 'started', 'done', 'error', 'hurry'].map((x) => path.join(dir, `${name}.${x}`));
  const [request, waiting, , done, error, hurry] = files;
  writeWhole(request, JSON.stringify({ waitVisible: selector, timeoutMs, ...(hurryWhen ? { slowUntilHurry: true } : {}) }) + '\n');
  // Counted from `.waiting`, which the runner writes when it starts watching (see RunnerWait).
  const wait = new RunnerWait(dir, name, timeoutMs, 'waiting');
  let started = false;
  let hurried = false;
  try {
    while (wait.pending()) {
      if (fs.existsSync(error)) throw new Error(`waiting for ${selector} failed: ${fs.readFileSync(error, 'utf8')}`);
      if (!started && fs.existsSync(waiting)) {
        started = true;
        start();
      }
      if (started && hurryWhen && !hurried && hurryWhen()) {
        hurried = true;
        writeWhole(hurry, '');
      }
      if (fs.existsSync(done)) return (JSON.parse(fs.readFileSync(done, 'utf8')) as { visibleAt: number }).visibleAt;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`${selector}: not visible: ${wait.why()}`);
  } finally {
    for (const f of files) fs.rmSync(f, { force: true });
  }
}

/**
 * Sends one request to the runner and waits for its answer (`<name>.done`, JSON) or its error.
 * Throws without the runner, on the runner's error, or after `timeoutMs`.
 */
async function runnerRequest<T>(body: Record<string, unknown>, timeoutMs: number): Promise<T> {
  const dir = process.env.SWITCHBOARD_SCREENSHOT_DIR;
  if (!dir) throw new Error('this check needs the test runner (SWITCHBOARD_SCREENSHOT_DIR is not set)');
  const name = `req-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const [request, done, error] = ['request', 'done', 'error'].map((x) => path.join(dir, `${name}.${x}`));
  fs.mkdirSync(dir, { recursive: true });
  writeWhole(request, JSON.stringify({ ...body, timeoutMs }) + '\n');
  const wait = new RunnerWait(dir, name, timeoutMs);
  try {
    while (wait.pending()) {
      if (fs.existsSync(error)) throw new Error(`runner request ${JSON.stringify(body).slice(0, 120)} failed: ${fs.readFileSync(error, 'utf8')}`);
      if (fs.existsSync(done)) {
        const raw = fs.readFileSync(done, 'utf8');
        if (raw.trim()) return JSON.parse(raw) as T;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`runner request ${JSON.stringify(body).slice(0, 120)}: ${wait.why()}`);
  } finally {
    for (const f of [request, done, error]) fs.rmSync(f, { force: true });
  }
}

/** Sets the browser window's size in CSS pixels (the workbench lays out again). */
export async function setViewport(width: number, height: number): Promise<void> {
  await runnerRequest({ viewport: { width, height } }, 10_000);
}

/** Drags the primary side bar's sash to `width` CSS pixels; resolves with the width it got. */
export async function setSidebarWidth(width: number): Promise<number> {
  return (await runnerRequest<{ width: number }>({ resizeSidebar: width }, 15_000)).width;
}

/**
 * Runs `script` (a function body that may `await` and `return`s JSON-able data) in the workbench page,
 * or — with `inFrame`, a Playwright selector — in every frame where that selector is visible (the
 * webviews), and resolves with one result per frame. With `axe`, axe-core is injected into each frame
 * first (`window.axe`). This is how the in-editor tests measure layout in the DOM.
 */
export async function evaluateInFrames<T = unknown>(script: string, options: { inFrame?: string; axe?: boolean; timeoutMs?: number } = {}): Promise<T[]> {
  const r = await runnerRequest<{ results: T[] }>({ evaluate: script, inFrame: options.inFrame, axe: options.axe }, options.timeoutMs ?? 20_000);
  return r.results;
}

/** One axe-core violation, trimmed to what a test failure message needs. */
export interface AxeViolation { id: string; impact: string | null; help: string; nodes: string[] }

/**
 * Runs axe-core in every frame where `inFrame` is visible and resolves with the violations of impact
 * `serious` or `critical` (WCAG 2.x A/AA rules), each with up to five offending elements' HTML.
 */
export async function axeSeriousViolations(inFrame: string): Promise<AxeViolation[]> {
  const script = `
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => String(n.html).slice(0, 200) + (n.any && n.any[0] ? ' — ' + String(n.any[0].message).slice(0, 200) : '')) }));`;
  const perFrame = await evaluateInFrames<AxeViolation[]>(script, { inFrame, axe: true, timeoutMs: 60_000 });
  return perFrame.flat();
}

/** Writes a request for the runner in one step: it polls for `*.request` and must never read half of one. */
function writeWhole(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}
