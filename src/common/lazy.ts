/**
 * A value built on first use and kept: the loaders of the libraries the extension requires only
 * after activation (src/acp/sdk.ts, src/mcp/sdk.ts, src/a2a/sdk.ts, src/edits/encoding.ts; PF6).
 */
export function lazy<T>(load: () => T): () => T {
  let value: T | undefined;
  let done = false;
  return () => {
    if (!done) {
      value = load();
      done = true;
    }
    return value as T;
  };
}
