/**
 * The stdio MCP transport reads a real child's output with the shared line framing (src/common/
 * lines.ts) and hands on what the SDK's `ReadBuffer` would: a line that is not JSON is skipped, JSON
 * that is not a JSON-RPC message is an error and the next line is read, a large result (10 MB, in
 * many pipe chunks) arrives whole, and a CRLF line is a message.
 */
import assert from 'node:assert/strict';
import { GroupStdioTransport } from '../../../src/mcp/stdioTransport';

describe('stdio MCP transport', () => {
  it('hands on each message of a server\'s output as the SDK reads it, a 10 MB result whole', async function () {
    this.timeout(20_000);
    const script = `
      const big = 'x'.repeat(10 * 1024 * 1024);
      process.stdout.write('not json\\n');
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'one' } }) + '\\n');
      process.stdout.write(JSON.stringify({ not: 'a message' }) + '\\n');
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: big }] } }) + '\\n');
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'crlf' } }) + '\\r\\n', () => setTimeout(() => process.exit(0), 50));
    `;
    const t = new GroupStdioTransport({ command: process.execPath, args: ['-e', script], env: { ...process.env } as Record<string, string> }, () => undefined);
    const messages: unknown[] = [];
    const errors: Error[] = [];
    t.onmessage = (m) => messages.push(m);
    t.onerror = (e) => errors.push(e);
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    assert.equal(messages.length, 3);
    assert.equal((messages[0] as { params: { data: string } }).params.data, 'one');
    const text = (messages[1] as { result: { content: { text: string }[] } }).result.content[0].text;
    assert.equal(text.length, 10 * 1024 * 1024);
    assert.equal((messages[2] as { params: { data: string } }).params.data, 'crlf');
    assert.equal(errors.length, 1, errors.map(String).join('; '));
  });

  it('reads the lines after a message whose handler threw, and says what it threw', async function () {
    this.timeout(20_000);
    const script = `process.stdout.write(['a', 'b', 'c'].map((d) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: d } })).join('\\n') + '\\n', () => process.exit(0));`;
    const t = new GroupStdioTransport({ command: process.execPath, args: ['-e', script], env: { ...process.env } as Record<string, string> }, () => undefined);
    const seen: string[] = [];
    const errors: string[] = [];
    t.onmessage = (m) => {
      const d = (m as unknown as { params: { data: string } }).params.data;
      seen.push(d);
      if (d === 'a') throw new Error('handler failed on a');
    };
    t.onerror = (e) => errors.push(e.message);
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    assert.deepEqual(seen, ['a', 'b', 'c']);
    assert.deepEqual(errors, ['handler failed on a']);
  });
});
