/**
 * Disposables and events without `vscode`, so the pure rooms can own lifetimes and emit changes.
 * Shapes mirror VS Code's `Disposable` and `Event` so adapters pass them through unchanged.
 */

/** Anything that releases resources when disposed. */
export interface IDisposable {
  dispose(): void;
}

/** Owns disposables and disposes them in reverse order of addition, once. */
export class DisposableStore implements IDisposable {
  private items: IDisposable[] = [];
  private disposed = false;

  /** Adds `d` and returns it; if the store is already disposed, `d` is disposed at once. */
  add<T extends IDisposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.items.push(d);
    return d;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items.reverse();
    this.items = [];
    for (const d of items) {
      try {
        d.dispose();
      } catch {
        // One failing disposer must not keep the others (processes, listeners) alive.
      }
    }
  }
}

/** A listener registration function, as VS Code's `Event<T>`. */
export type Event<T> = (listener: (e: T) => void) => IDisposable;

/** A minimal event emitter; listener errors are isolated from each other and from the emitter. */
export class Emitter<T> implements IDisposable {
  private listeners = new Set<(e: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  /** Whether anyone listens: lets a costly event value be skipped when nobody would see it. */
  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        console.error('[agent-switchboard] listener failed', err);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/** Wraps a function as a disposable. */
export function toDisposable(fn: () => void): IDisposable {
  let done = false;
  return {
    dispose: () => {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}
