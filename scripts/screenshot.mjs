#!/usr/bin/env node
// Screenshot of a RUNNING code-server workbench with the Agent Switchboard sidebar open (for docs).
// Opens the URL in headless Chromium (playwright-core), clicks the "Agent Switchboard" activity-bar
// item (unless it is already open), waits for the webview frame that contains `#app`, saves a PNG.
//
// usage: node scripts/screenshot.mjs <url> <out.png> [--selector '#app'] [--title 'Agent Switchboard']
//          [--timeout 90] [--width 1400] [--height 900] [--settle-ms 1500]
//   e.g.  npm run demo -- --check --screenshot media/screenshots/demo.png   (starts + stops the server)
//         node scripts/screenshot.mjs "http://127.0.0.1:8080/?folder=$HOME/agent-switchboard-demo" out.png
// env: CHROMIUM (default: chromium on PATH). exit code 0 = saved, 1 = error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const positional = [];
const opts = { selector: '#app', title: 'Agent Switchboard', timeout: '90', width: '1400', height: '900', 'settle-ms': '1500' };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([^=]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) { positional.push(argv[i]); continue; }
    if (!(m[1] in opts)) { console.error(`screenshot: unknown option --${m[1]}`); process.exit(1); }
    opts[m[1]] = m[2] ?? argv[++i];
  }
}
const [url, out] = positional;
if (!url || !out) {
  console.error('usage: node scripts/screenshot.mjs <code-server url> <out.png> [--selector #app] [--title "Agent Switchboard"] [--timeout sec]');
  process.exit(1);
}
let chromiumBin = process.env.CHROMIUM;
if (!chromiumBin) { try { chromiumBin = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim(); } catch { chromiumBin = '/usr/bin/chromium'; } }
const timeoutMs = Number(opts.timeout) * 1000;
const t0 = Date.now();
const log = (...a) => console.log(`[screenshot ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
const left = () => Math.max(1000, timeoutMs - (Date.now() - t0));

const { chromium } = await import('playwright-core');
const profile = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'switchboard-shot-'));
let context;
let rc = 0;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumBin,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    viewport: { width: Number(opts.width), height: Number(opts.height) },
  });
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', e => log('pageerror:', e.message));
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: left() });
  await page.waitForSelector('.monaco-workbench', { timeout: left() });
  log('workbench visible');

  // the activity-bar entry appears once the remote extension host has registered the container
  const item = page.locator(`.activitybar li.action-item:has([aria-label^="${opts.title}"]), .activitybar li.action-item[aria-label^="${opts.title}"]`).first();
  await item.waitFor({ timeout: left() });
  const checked = /\bchecked\b/.test((await item.getAttribute('class')) || '');
  if (checked) log(`"${opts.title}" already open`);
  else { await item.click(); log(`clicked the "${opts.title}" activity-bar item`); }

  // the webview lives in nested iframes: find the frame that contains the selector
  const deadline = Date.now() + left();
  let frame;
  while (!frame && Date.now() < deadline) {
    for (const f of page.frames()) {
      try { if (await f.locator(opts.selector).count()) { frame = f; break; } } catch { /* detached */ }
    }
    if (!frame) await page.waitForTimeout(300);
  }
  if (!frame) throw new Error(`no frame with ${opts.selector} appeared (is the view's webview rendering?)`);
  // wait (briefly) until the root has rendered something
  const until = Date.now() + 10000;
  while (Date.now() < until) {
    const filled = await frame.locator(opts.selector).first().evaluate(el => el.childElementCount > 0 || (el.textContent || '').trim().length > 0).catch(() => false);
    if (filled) break;
    await page.waitForTimeout(250);
  }
  log(`webview ${opts.selector} found: ${JSON.stringify(((await frame.locator(opts.selector).first().innerText().catch(() => '')) || '').slice(0, 120))}`);
  await page.mouse.move(Number(opts.width) / 2, Number(opts.height) - 5); // no hover tooltip on the shot
  await page.waitForTimeout(Number(opts['settle-ms']));
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  await page.screenshot({ path: out });
  log('saved', out);
} catch (e) {
  console.error(`screenshot: ${e?.message || e}`);
  rc = 1;
} finally {
  try { await context?.close(); } catch { /* ignore */ }
  fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(rc);
