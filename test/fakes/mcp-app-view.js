// The view of the fake MCP App (bundled by test/fakes/mcp-app-server.mjs with esbuild into the
// resource's HTML, as real apps are): shows the tool's input and result, calls `add` (app-visible)
// and `secret` (model-only; the host must refuse it), tries a fetch the policy must block, and asks
// to open a link whose host hides behind a long user name.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const $ = (id) => document.getElementById(id);
const app = new App({ name: 'fake-sum-view', version: '1.0.0' }, {});
app.ontoolinput = (p) => ($('input').textContent = `input: ${JSON.stringify(p.arguments)}`);
app.ontoolresult = (r) => ($('result').textContent = `result: ${r.content?.[0]?.text ?? '?'}`);
app.onhostcontextchanged = () => undefined;
$('add').addEventListener('click', async () => {
  const r = await app.callServerTool({ name: 'add', arguments: { a: 20, b: 22 } });
  $('add-result').textContent = `add: ${r.content?.[0]?.text ?? '?'}`;
});
$('secret').addEventListener('click', async () => {
  const r = await app.callServerTool({ name: 'secret', arguments: {} }).catch((e) => ({ isError: true, content: [{ text: String(e.message) }] }));
  $('secret-result').textContent = `secret: ${r.isError ? 'refused' : 'allowed'} (${r.content?.[0]?.text ?? ''})`;
});
$('fetch').addEventListener('click', async () => {
  try {
    await fetch('https://example.com/');
    $('fetch-result').textContent = 'fetch: allowed';
  } catch {
    $('fetch-result').textContent = 'fetch: blocked';
  }
});
// A link whose first 500 characters read as accounts.example and whose host is evil.example: the
// host must refuse it (a user name in front of the host) without asking anyone.
$('link').addEventListener('click', async () => {
  const r = await app.openLink({ url: `https://accounts.example${'&'.repeat(520)}@evil.example/` }).catch((e) => ({ isError: true, message: String(e.message) }));
  $('link-result').textContent = `link: ${r.isError ? 'refused' : 'opened'}`;
});
app.connect(new PostMessageTransport(window.parent, window.parent)).then(() => {
  const ctx = app.getHostContext();
  $('host').textContent = `host: ${ctx?.theme ?? '?'} theme, ${Object.values(ctx?.styles?.variables ?? {}).filter(Boolean).length} style variables`;
  document.body.style.background = ctx?.styles?.variables?.['--color-background-primary'] ?? '';
  document.body.style.color = ctx?.styles?.variables?.['--color-text-primary'] ?? '';
});
