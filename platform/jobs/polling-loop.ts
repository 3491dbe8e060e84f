/**
 * A background loop that turns until stopped: `run` loops while `running`, pausing between turns
 * with `pause`, which `poke` (and `stop`) end at once.
 */
export abstract class PollingLoop {
  protected running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops the loop; resolves once its current turn is over. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Ends the current pause: something is there to do now rather than at the next poll. */
  poke(): void {
    this.wake?.();
  }

  protected abstract run(): Promise<void>;

  protected pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
