import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ListFormatOnFirstUse, loadGot } from '../../src/service-client/load-got'

const loader = fileURLToPath(new URL('../../src/service-client/load-got.ts', import.meta.url))

describe('loadGot', () => {
  it('loads got in a fresh process without building an Intl.ListFormat, which its errors still use', async () => {
    // A process of its own: in this one got may be loaded already (by other tests' imports).
    const script = `
      let built = 0
      class Counting extends Intl.ListFormat { constructor(...args) { super(...args); built++ } }
      Intl.ListFormat = Counting
      const { loadGot } = await import(${JSON.stringify(loader)})
      const { default: got } = loadGot()
      const atLoad = built
      let message = ''
      try { got.extend({ prefixUrl: 5 }) } catch (error) { message = error.message }
      console.log(JSON.stringify({ atLoad, afterError: built, restored: Intl.ListFormat === Counting, message }))
    `
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    )
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!)
    expect(seen.atLoad).toBe(0)
    expect(seen.restored).toBe(true)
    // got's wording of a bad option, with its "or" and "and" lists, is what it was.
    expect(seen.message).toBe(
      "Option 'prefixUrl': Expected values which are `string` or `URL`. Received values of type `number`.",
    )
    expect(seen.afterError).toBeGreaterThan(0)
  })

  it('puts the real Intl.ListFormat back when loading fails', () => {
    const real = Intl.ListFormat
    let during: unknown
    expect(() =>
      loadGot(() => {
        during = Intl.ListFormat
        throw new Error('cannot load')
      }),
    ).toThrow('cannot load')
    expect(during).toBe(ListFormatOnFirstUse)
    expect(Intl.ListFormat).toBe(real)
  })

  it('formats as Intl.ListFormat does, and is one', () => {
    for (const type of ['conjunction', 'disjunction'] as const) {
      const options = { style: 'long', type } as const
      const real = new Intl.ListFormat('en', options)
      const lazy = new ListFormatOnFirstUse('en', options)
      const list = ['`string`', '`URL`', '`number`']
      expect(lazy.format(list)).toBe(real.format(list))
      expect(lazy.formatToParts(list)).toEqual(real.formatToParts(list))
      expect(lazy.resolvedOptions()).toEqual(real.resolvedOptions())
      expect(lazy).toBeInstanceOf(Intl.ListFormat)
    }
    expect(new ListFormatOnFirstUse('es', { type: 'disjunction' }).format(['a', 'b'])).toBe('a o b')
  })
})
