// got, loaded without the two Intl.ListFormat objects its dependency @sindresorhus/is builds as it
// loads (only to word argument-type errors: "Expected values which are `string` or `number`").
// The first Intl formatter a process builds maps ICU's locale data: ~7 MB of resident memory that a
// process formatting nothing (browser mode's backend, a 5 GB upload) would hold for nothing; the
// app's own formatters (shared/locale-format.ts) are made when a screen or notice needs them.
// While got loads (synchronously: require() of an ES module), Intl.ListFormat is a class that builds
// the real formatter when it is first used, and the real class is back before anything else runs.
import { createRequire } from 'node:module'

type GotModule = typeof import('got')

const RealListFormat = Intl.ListFormat

/** Same constructor arguments and methods as Intl.ListFormat; the formatter is built on first use. */
export class ListFormatOnFirstUse {
  static supportedLocalesOf = RealListFormat.supportedLocalesOf
  readonly #args: ConstructorParameters<typeof Intl.ListFormat>
  #real: Intl.ListFormat | undefined

  constructor(...args: ConstructorParameters<typeof Intl.ListFormat>) {
    this.#args = args
  }

  #formatter(): Intl.ListFormat {
    this.#real ??= new RealListFormat(...this.#args)
    return this.#real
  }

  format(list: Iterable<string>): string {
    return this.#formatter().format(list)
  }

  formatToParts(list: Iterable<string>): { type: 'element' | 'literal'; value: string }[] {
    return this.#formatter().formatToParts(list)
  }

  resolvedOptions(): Intl.ResolvedListFormatOptions {
    return this.#formatter().resolvedOptions()
  }
}
// `instanceof Intl.ListFormat` holds for it as for the real one.
Object.setPrototypeOf(ListFormatOnFirstUse.prototype, RealListFormat.prototype)

/** Loads got (once per process, as import does; later calls get the same module). */
export function loadGot(load: (name: string) => unknown = createRequire(import.meta.url)): GotModule {
  const intl = Intl as { ListFormat: unknown }
  const real = intl.ListFormat
  intl.ListFormat = ListFormatOnFirstUse
  try {
    return load('got') as GotModule
  } finally {
    intl.ListFormat = real
  }
}
