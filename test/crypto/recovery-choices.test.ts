// Pins what docs/FORMAT.md 3.8 and 3.11 settle about recovery from files on disk, where the recovery
// code (src/recovery) already does it: which of several undated copies wins (the first given), where a
// format-1 blob found in a subfolder is written, a path and its own folder in two blobs, and the exit
// status when an older copy is written because the newest one is damaged.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import { recoverFiles } from '../../src/recovery/index'
import {
  collectBytes,
  encodeOwnerKitWords,
  encryptBundleStream,
  generateVaultKey,
  HEADER_SIZE,
} from '../../src/vault-format/index'
import { encryptStreamV1 } from './support/legacy-v1'
import { encryptBlobV2 } from './support/legacy-writers'

const vaultKey = generateVaultKey()
const vaultId = 'recovery-choices'
const work = mkdtempSync(join(tmpdir(), 'vault-choices-'))
afterAll(() => {
  rmSync(work, { recursive: true, force: true })
  rmSync(cliDir, { recursive: true, force: true })
})
const page = readFileSync(new URL('../../docs/FORMAT.md', import.meta.url), 'utf8')
// The recovery CLI bundled as scripts/build-cli.mjs does, into a folder of its own inside the checkout
// (its packages stay external, so it must see node_modules).
const cliDir = join(process.cwd(), 'out/test-recovery-choices')
const cli = join(cliDir, 'recover.js')

beforeAll(async () => {
  await build({
    entryPoints: { recover: 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
    outdir: cliDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
})

let count = 0
function folder(): string {
  const dir = join(work, `case-${count++}`)
  mkdirSync(dir)
  return dir
}

describe('several copies on disk (FORMAT.md 3.11)', () => {
  it('undated copies of one path: the first given wins, the others are older, in either order', async () => {
    expect(page).toMatch(/Among them, the \*\*first given wins\*\*/)
    const dir = folder()
    const a = join(dir, 'one.vault')
    const b = join(dir, 'two.vault')
    // Format 2: a recorded path and no date inside; files on disk have no date from a source either.
    writeFileSync(a, await encryptBlobV2(Buffer.from('copy A'), { vaultKey, vaultId, path: 'will.txt' }))
    writeFileSync(b, await encryptBlobV2(Buffer.from('copy B'), { vaultKey, vaultId, path: 'will.txt' }))
    for (const [inputs, winner] of [
      [[a, b], 'copy A'],
      [[b, a], 'copy B'],
    ] as const) {
      const outDir = join(dir, `out-${winner.at(-1)}`)
      const results = await recoverFiles({ vaultKey, vaultId, inputs: [...inputs], outDir })
      expect(readFileSync(join(outDir, 'will.txt'), 'utf8')).toBe(winner)
      expect(results.map((r) => [r.input, r.status])).toEqual([
        [inputs[0], 'recovered'],
        [inputs[1], 'superseded'],
      ])
    }
  })

  it('a format-1 blob found in a subfolder keeps its place below the folder given', async () => {
    const dir = folder()
    mkdirSync(join(dir, 'backup/photos'), { recursive: true })
    const blob = await collectBytes(encryptStreamV1([Buffer.from('old photo')], { vaultKey, vaultId }))
    writeFileSync(join(dir, 'backup/photos/x.jpg.vault'), blob)
    writeFileSync(join(dir, 'alone.jpg.vault'), blob)
    const outDir = join(dir, 'out')
    await recoverFiles({
      vaultKey,
      vaultId,
      inputs: [join(dir, 'backup'), join(dir, 'alone.jpg.vault')],
      outDir,
    })
    expect(readFileSync(join(outDir, 'photos/x.jpg'), 'utf8')).toBe('old photo')
    expect(readFileSync(join(outDir, 'alone.jpg'), 'utf8')).toBe('old photo')
  })

  it("'a' and 'a/b' in two blobs: the first is written, the other fails in its way, nothing replaced", async () => {
    const dir = folder()
    writeFileSync(
      join(dir, '1.vault'),
      await encryptBlobV2(Buffer.from('file a'), { vaultKey, vaultId, path: 'a' }),
    )
    writeFileSync(
      join(dir, '2.vault'),
      await encryptBlobV2(Buffer.from('file a/b'), { vaultKey, vaultId, path: 'a/b' }),
    )
    const outDir = join(dir, 'out')
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [dir], outDir })
    expect(readFileSync(join(outDir, 'a'), 'utf8')).toBe('file a')
    const second = results.find((r) => r.input.endsWith('2.vault'))!
    expect(['failed', 'skipped']).toContain(second.status)
    expect(second.message).toBeTruthy()
  })

  it('the newest copy damaged: the older one is written, the newest reported, and the exit status is 1', async () => {
    expect(page).toMatch(/when an older copy\s+was written because the newest copy of its path is damaged/)
    const dir = folder()
    const bundle = async (name: string, createdAtMs: number, text: string) => {
      const entries = [
        { identity: { path: 'will.txt', size: text.length }, content: () => [Buffer.from(text)] },
      ]
      const blob = await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs }))
      writeFileSync(join(dir, name), blob)
      return blob
    }
    await bundle('old.vault', Date.UTC(2031, 0, 1), 'old will')
    const newest = await bundle('new.vault', Date.UTC(2031, 5, 1), 'new will')
    newest[HEADER_SIZE + 20]! ^= 1
    writeFileSync(join(dir, 'new.vault'), newest)
    const outDir = join(dir, 'out')
    const run = await promisify(execFile)(process.execPath, [
      cli,
      '--owner-kit',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      '--out',
      outDir,
      dir,
    ]).then(
      () => ({ code: 0 }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    )
    expect(run, JSON.stringify(run)).toMatchObject({ code: 1 })
    expect(readFileSync(join(outDir, 'will.txt'), 'utf8')).toBe('old will')
  })
})
