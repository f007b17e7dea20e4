// The recovery tool's one line of progress on a terminal. A download reports every piece the socket
// gives (64 KiB): redrawing the line each time made ~16,000 terminal writes a GB, for a percentage that
// changes a hundred times. The line is written only when what it says changes.

/** Where the line goes: process.stderr, or anything with write() (tests). */
export interface LineOutput {
  write(text: string): unknown
}

export class ProgressLine {
  #shown = ''

  constructor(
    private readonly output: LineOutput,
    private readonly width = 120,
  ) {}

  /** Shows `text` (cut or padded to the width) in place of the line, unless it already says that. */
  show(text: string): void {
    const line = text.slice(0, this.width).padEnd(this.width)
    if (line === this.#shown) return
    this.#shown = line
    this.output.write(`\r${line}`)
  }

  /** Blanks the line, if one was shown, so that what follows starts at the left. */
  clear(): void {
    if (!this.#shown) return
    this.#shown = ''
    this.output.write(`\r${' '.repeat(this.width)}\r`)
  }
}
