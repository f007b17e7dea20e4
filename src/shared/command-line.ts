// Command-line words before node:util parseArgs: a value that starts with a dash stays a value.

/** Only the shape of parseArgs' option table that matters here. */
export type OptionTable = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>
>

/**
 * `--name -value` becomes `--name=-value` when --name takes a string and -value is not itself an
 * option of the table. parseArgs refuses such a pair as ambiguous, yet Arweave addresses, tokens and
 * passwords start with "-" about once in 64; a known option after --name (a forgotten value) is left
 * for parseArgs to refuse.
 */
export function attachDashValues(argv: readonly string[], options: OptionTable): string[] {
  const known = new Set<string>()
  for (const [name, option] of Object.entries(options)) {
    known.add(`--${name}`)
    if (option.short) known.add(`-${option.short}`)
  }
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (word === '--') {
      out.push(...argv.slice(i))
      break
    }
    const next = argv[i + 1]
    const takesString = word.startsWith('--') && options[word.slice(2)]?.type === 'string'
    if (
      takesString &&
      next !== undefined &&
      next.startsWith('-') &&
      next !== '--' &&
      !known.has(optionName(next))
    ) {
      out.push(`${word}=${next}`)
      i++
    } else {
      out.push(word)
    }
  }
  return out
}

/** `--out=dir` and `--out` are the same option; `-abc` is looked up as written. */
function optionName(word: string): string {
  const equals = word.indexOf('=')
  return word.startsWith('--') && equals > 0 ? word.slice(0, equals) : word
}
