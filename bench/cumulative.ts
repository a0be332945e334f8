/**
 * PF10, the host's share (issue 22 step 3): 200 `tool_call_update`s that each replace a tool's
 * content with text growing to 2 MiB (~200 MB on the wire), each parsed from JSON and taken through
 * the session controller, the reducer, the journal and the sidebar's 16 ms batching (serialised as
 * it is posted), one per macrotask as a connection delivers them. Reports the largest event-loop
 * delay seen meanwhile (`monitorEventLoopDelay`, 10 ms resolution), RSS growth after a collection,
 * and how long after the last update the state held its content. The in-editor figure (the last
 * content visible in the sidebar) is not measured here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type * as acp from '@agentclientprotocol/sdk';
import { hostPipeline } from './session';

const UPDATES = 200;
const FINAL_BYTES = 2 * 1024 * 1024;

/** PF10 on the host side: max event-loop lag (ms), RSS growth (MB), the last update's latency (ms). */
export async function cumulativeBenchmarks(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-pf10-'));
  try {
    const { c, journalId, finish } = hostPipeline(dir);
    c.onUpdate({ sessionUpdate: 'tool_call', toolCallId: 'grow', title: 'Build', kind: 'execute', status: 'in_progress' });
    const line = 'x'.repeat(1023) + '\n';
    const wire = (i: number) => {
      const bytes = Math.round(((i + 1) / UPDATES) * FINAL_BYTES);
      const text = line.repeat(Math.floor(bytes / 1024)).slice(0, bytes);
      return JSON.stringify({ sessionUpdate: 'tool_call_update', toolCallId: 'grow', content: [{ type: 'content', content: { type: 'text', text } }] });
    };
    (global as { gc?: () => void }).gc?.();
    const rss0 = process.memoryUsage().rss;
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    let peakRss = rss0;
    const t0 = performance.now();
    for (let i = 0; i < UPDATES; i++) {
      const u = JSON.parse(wire(i)) as acp.SessionUpdate;
      c.onUpdate(u);
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      await new Promise((r) => setImmediate(r));
    }
    const lastAt = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    const shown = c.state.toolCalls.grow.content[0];
    const ok = shown?.type === 'text' && shown.text.length === FINAL_BYTES;
    lag.disable();
    const posted = finish();
    (global as { gc?: () => void }).gc?.();
    const rss1 = process.memoryUsage().rss;
    if (!ok || !posted) throw new Error('PF10: the last content did not arrive');
    return {
      cumulativeOutputHost: {
        maxEventLoopLagMs: Number((lag.max / 1e6).toFixed(1)),
        p99EventLoopLagMs: Number((lag.percentile(99) / 1e6).toFixed(1)),
        rssGrowthMB: Number(((rss1 - rss0) / 2 ** 20).toFixed(1)),
        peakRssGrowthMB: Number(((peakRss - rss0) / 2 ** 20).toFixed(1)),
        totalMs: Math.round(lastAt - t0),
        journalMB: Number((fs.statSync(path.join(dir, `${journalId}.jsonl`)).size / 2 ** 20).toFixed(1)),
        goal: 'lag <= 50 ms, RSS growth <= 64 MB (in the extension host; this is the host pipeline under plain Node)',
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
