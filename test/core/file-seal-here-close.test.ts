// file-seal-here.ts reads the descriptor itself (fs.read), which FileHandle does not track: a stream
// stopped while a read is in flight must keep the descriptor open until that read is back, or a file
// opened meanwhile could take its number and be read in its place.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { descriptorsOn } from '../support/open-descriptors'

/** Reads whose callbacks are held until released: a drive that is slow to answer. */
const held: (() => void)[] = []
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const read = (...args: unknown[]) => {
    const callback = args.at(-1) as (...result: unknown[]) => void
    ;(fs.read as (...a: unknown[]) => void)(...args.slice(0, -1), (...result: unknown[]) =>
      held.push(() => callback(...result)),
    )
  }
  return { ...fs, default: { ...fs, read }, read }
})

const { readFileHere } = await import('../../src/node-cipher/file-seal-here')

const dir = mkdtempSync(join(tmpdir(), 'vault-seal-here-close-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(process.platform === 'linux')('stopping a stream while its read is in flight', () => {
  it('keeps the descriptor open until the read is back, then closes it', async () => {
    const path = join(dir, 'slow.bin')
    writeFileSync(path, new Uint8Array(3 << 20).fill(7))
    const stream = readFileHere(path, { size: 3 << 20 })
    const pending = stream.next()
    for (let waited = 0; held.length === 0 && waited < 2000; waited += 10) await sleep(10)
    expect(held).toHaveLength(1)
    await stream.return?.()
    await expect(pending).resolves.toEqual({ done: true, value: undefined })
    await sleep(50)
    expect(descriptorsOn(path)).toBe(1)
    held.shift()!()
    for (let waited = 0; descriptorsOn(path) > 0 && waited < 2000; waited += 10) await sleep(10)
    expect(descriptorsOn(path)).toBe(0)
  })
})
