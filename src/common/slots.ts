/** A counting semaphore: at most `n` tasks (reads and other I/O that must not all run at once) run together, the others wait in order. */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly n: number) {}

  /** Runs `task` once a slot is free; waiters are served in order. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot to the next waiter directly, so no newcomer can slip in between.
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
