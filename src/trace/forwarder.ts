/**
 * Live export of a window's traces to an OTLP collector the person configured (Jaeger, Tempo,
 * Phoenix…): every span that ends — ours and those agents sent to our receiver — is queued and
 * posted as OTLP/HTTP JSON in batches. The queue is bounded (the oldest spans are dropped and
 * counted when the collector cannot keep up or is down); a failed post is retried with backoff,
 * never blocking the editor. Live spans are sent once they end. No `vscode`.
 */
import { toOtlpJson, type SpanRecord } from './otlp';

/** Options of the forwarder. */
export interface ForwarderOptions {
  /** The collector's traces endpoint, e.g. `http://localhost:4318/v1/traces`. */
  url: string;
  /** Spans per request (default 512). */
  batchSize?: number;
  /** Spans waiting at most (default 10,000); beyond it the oldest are dropped. */
  maxQueue?: number;
  /** Milliseconds between flushes (default 1,000). */
  intervalMs?: number;
  /** Extra request headers (e.g. the collector's authorization). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  log?: (message: string) => void;
}

/** Posts ended spans to a collector. */
export class TraceForwarder {
  private queue: SpanRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private failures = 0;
  private nextTry = 0;
  /** Spans dropped because the queue was full. */
  dropped = 0;
  /** Spans the collector accepted. */
  sent = 0;

  constructor(private readonly options: ForwarderOptions) {
    const u = new URL(options.url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`The trace export endpoint must be an http(s) URL, not ${u.protocol}`);
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000);
    this.timer.unref?.();
  }

  /** Queues the ended spans among `spans`. */
  add(spans: readonly SpanRecord[]): void {
    for (const s of spans) if (s.endMs !== undefined) this.queue.push(s);
    const max = this.options.maxQueue ?? 10_000;
    if (this.queue.length > max) {
      this.dropped += this.queue.length - max;
      this.queue.splice(0, this.queue.length - max);
    }
  }

  /** Posts what is queued, batch by batch; stops at the first failure (retried later with backoff). */
  async flush(): Promise<void> {
    if (this.sending || !this.queue.length || Date.now() < this.nextTry) return;
    this.sending = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.slice(0, this.options.batchSize ?? 512);
        let body: string;
        try {
          body = JSON.stringify(toOtlpJson(batch));
        } catch {
          // A batch that cannot be written is dropped, not retried forever.
          this.dropBatch(batch.length);
          continue;
        }
        const res = await (this.options.fetch ?? fetch)(this.options.url, { method: 'POST', headers: { ...this.options.headers, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
        // The collector refuses this batch for good (400, 413…): drop it and go on; 408/429/5xx are retried.
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
          this.options.log?.(`The trace collector refused ${batch.length} spans (${res.status}); they were dropped.`);
          this.dropBatch(batch.length);
          continue;
        }
        if (!res.ok) throw new Error(`the collector answered ${res.status}`);
        this.queue.splice(0, batch.length);
        this.sent += batch.length;
        this.failures = 0;
      }
    } catch (err) {
      this.failures++;
      // 1 s, 2 s, 4 s … up to a minute between tries; the first failure is logged, not each retry.
      this.nextTry = Date.now() + Math.min(60_000, 1000 * 2 ** (this.failures - 1));
      if (this.failures === 1) this.options.log?.(`Trace export to ${this.options.url} failed (${err instanceof Error ? err.message : String(err)}); retrying with backoff.`);
    } finally {
      this.sending = false;
    }
  }

  private dropBatch(n: number): void {
    this.queue.splice(0, n);
    this.dropped += n;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
