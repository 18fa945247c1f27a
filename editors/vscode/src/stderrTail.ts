// The last few KB a child printed on stderr: enough to say why it died,
// bounded so a chatty server cannot grow the extension's memory.

export const STDERR_TAIL_BYTES = 8 * 1024;

export class StderrTail {
  private text = "";

  constructor(private readonly limit = STDERR_TAIL_BYTES) {}

  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.limit) {
      this.text = this.text.slice(this.text.length - this.limit);
    }
  }

  toString(): string {
    return this.text;
  }
}
