import { parseArgs } from 'node:util'
import { describe, expect, it } from 'vitest'
import { attachDashValues } from '../../src/shared/command-line'

const OPTIONS = {
  owner: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function parse(argv: string[]) {
  return parseArgs({ args: attachDashValues(argv, OPTIONS), options: OPTIONS, allowPositionals: true })
}

describe('attachDashValues', () => {
  it('keeps a value that starts with a dash as the value of a string option', () => {
    // parseArgs alone refuses this pair as ambiguous.
    expect(() => parseArgs({ args: ['--owner', '-Abc_9'], options: OPTIONS })).toThrow(/ambiguous/)
    expect(parse(['--owner', '-Abc_9', '--out', '-dir']).values).toEqual({ owner: '-Abc_9', out: '-dir' })
    expect(parse(['--owner', '-']).values).toEqual({ owner: '-' })
  })

  it('leaves a forgotten value for parseArgs to refuse', () => {
    expect(() => parse(['--owner', '--out', 'dir'])).toThrow(/ambiguous/)
    expect(() => parse(['--owner', '--out=dir'])).toThrow(/ambiguous/)
    expect(() => parse(['--owner', '-h'])).toThrow(/ambiguous/)
    expect(() => parse(['--owner'])).toThrow(/argument missing/)
  })

  it('touches neither boolean options, values given with =, nor words after --', () => {
    expect(() => parse(['--json', '-x'])).toThrow(/Unknown option '-x'/)
    expect(parse(['--owner=-a', 'p']).values).toEqual({ owner: '-a' })
    const after = parse(['--', '--owner', '-a'])
    expect(after.values).toEqual({})
    expect(after.positionals).toEqual(['--owner', '-a'])
  })
})
