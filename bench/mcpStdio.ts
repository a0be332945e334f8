/**
 * mcpStdioLargeResult (issue 22: where a person feels it): a stdio MCP server's 30 MB tool result,
 * from starting the server until the transport hands on the message (`GroupStdioTransport`: the
 * shared line framing, `JSON.parse`, the SDK's JSON-RPC check) ÷ reading the same server's output
 * through a plain Node pipe to its end with a no-op handler (the floor: the child's start and the
 * bytes themselves). Median of 5 back-to-back pairs. `sdkReadBufferMs`: the MCP SDK's `ReadBuffer`
 * framing the same bytes in 64 KiB chunks in this process, what the transport used before (it
 * concatenates all it holds with each chunk). Goal ≤ 2 (informative).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { ReadBuffer } from '@modelcontextprotocol/client';
import { GroupStdioTransport } from '../src/mcp/stdioTransport';

const MB = 30;
const SCRIPT = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(${MB} * 1024 * 1024) }] } }) + '\\n');`;

/** Starting the server until its one message is handed on, in ms. */
async function viaTransport(): Promise<number> {
  const t0 = performance.now();
  const t = new GroupStdioTransport({ command: process.execPath, args: ['-e', SCRIPT], env: { ...process.env } as Record<string, string> }, () => undefined);
  const got = new Promise<void>((resolve, reject) => {
    t.onmessage = () => resolve();
    t.onerror = reject;
  });
  await t.start();
  await got;
  const ms = performance.now() - t0;
  await t.close();
  return ms;
}

/** Starting the same server until its output has been read to the end, in ms. */
function viaPipe(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => undefined);
    child.stdout.on('end', () => resolve(performance.now() - t0));
    child.on('error', reject);
  });
}

/** The stdio MCP transport's cost for one large message, as a ratio against a plain pipe read in the same run. */
export async function mcpStdioBenchmarks(): Promise<Record<string, unknown>> {
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  await viaPipe();
  await viaTransport();
  const ratios: number[] = [];
  const ours: number[] = [];
  const pipe: number[] = [];
  for (let i = 0; i < 5; i++) {
    pipe.push(await viaPipe());
    ours.push(await viaTransport());
    ratios.push(ours[i] / pipe[i]);
  }
  const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(MB * 1024 * 1024) }] } }) + '\n');
  const rb = new ReadBuffer({ maxBufferSize: 64 << 20 });
  const t0 = performance.now();
  for (let at = 0; at < line.length; at += 65_536) {
    rb.append(line.subarray(at, at + 65_536));
    while (rb.readMessage()) break;
  }
  const sdkReadBufferMs = Math.round(performance.now() - t0);
  return {
    mcpStdioLargeResult: {
      ratio: Number(med(ratios).toFixed(2)),
      oursMs: Math.round(med(ours)),
      pipeMs: Math.round(med(pipe)),
      resultMB: MB,
      sdkReadBufferMs,
      goal: '<= 2 (a 30 MB tool result handed on ÷ the same output read through a plain pipe)',
    },
  };
}
