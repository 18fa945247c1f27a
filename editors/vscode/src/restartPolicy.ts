// When a crashed aiq-rpc is restarted at once, as vscode-go does for gopls:
// a few times in a window, so a server that dies at every turn does not
// spin. Past the limit it still restarts, on the user's next command.

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(
    readonly maxRestarts = 3,
    readonly windowMs = 3 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash and says whether to restart right away. */
  recordCrash(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.maxRestarts;
  }

  /** Whether this is the first crash of the window: only that one pops up. */
  isFirstInWindow(): boolean {
    return this.crashes.length === 1;
  }
}
