// Heir recovery: the library (per-file results, no overwrite, nothing written for failures) and the
// CLI run as a child process from an esbuild bundle made the same way as scripts/build-cli.mjs.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import { shareQrPng } from '../../src/main/core/printable/share-qr'
import { nodeCipher } from '../../src/node-cipher/cipher-choice'
import { recoverFiles, recoverVaultKey } from '../../src/recovery/index'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import { isolateName } from '../../src/shared/untrusted-text'
import {
  collectBytes,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  type GuardianShare,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format/index'

const run = promisify(execFile)
const vaultKey = generateVaultKey()
const vaultId = '7d1c2a9e-4b0f-4e8a-9c3d-2f6b8a1e0c55'
let shares: GuardianShare[]
let work: string
let cli: string
const originals = new Map<string, Buffer>()

/** The blob records its path (by default the name it is stored under, without '.vault'). */
async function encryptTo(path: string, plain: Buffer, recorded = basename(path, '.vault')) {
  const identity = { path: recorded, size: plain.length }
  writeFileSync(path, await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity })))
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vault-recovery-'))
  shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
  const good = join(work, 'good')
  const mixed = join(work, 'mixed')
  mkdirSync(join(good, 'photos'), { recursive: true })
  mkdirSync(mixed)
  originals.set('letter.txt', Buffer.from('To my family: the passwords are in the blue folder.\n'))
  originals.set('photos/holiday.jpg', randomBytes(70_000))
  originals.set('empty', Buffer.alloc(0))
  for (const [name, plain] of originals) await encryptTo(join(good, `${name}.vault`), plain, name)
  // The vault's list of these files, as the owner's app writes it (FORMAT.md 3.10).
  const listedAt = Date.now()
  const entries = [...originals].map(([path, plain]) => ({
    path,
    size: plain.length,
    sha256: createHash('sha256').update(plain).digest('hex'),
    writtenAtMs: listedAt,
  }))
  writeFileSync(
    join(good, 'manifest.vault'),
    await encryptManifest({ sequence: 1, writtenAtMs: listedAt, entries }, { vaultKey, vaultId }),
  )
  writeFileSync(join(good, 'README.txt'), 'not encrypted, not a .vault file: ignored')

  await encryptTo(join(mixed, 'fine.txt.vault'), Buffer.from('fine'))
  const tampered = readFileSync(join(good, 'photos/holiday.jpg.vault'))
  tampered[30_000]! ^= 1
  writeFileSync(join(mixed, 'tampered.jpg.vault'), tampered)
  writeFileSync(
    join(mixed, 'cut.jpg.vault'),
    readFileSync(join(good, 'photos/holiday.jpg.vault')).subarray(0, 40_000),
  )
  const identity = { path: 'other-vault', size: 1 }
  await collectBytes(
    encryptStream([Buffer.from('x')], { vaultKey: generateVaultKey(), vaultId, identity }),
  ).then((ct) => writeFileSync(join(mixed, 'other-vault.vault'), ct))

  // Same entry and options as scripts/build-cli.mjs, built alone so another tool's entry cannot break it.
  cli = join(process.cwd(), 'out/cli/recover.js')
  await build({
    entryPoints: { recover: 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
    outdir: dirname(cli),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  })
})

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

async function recover(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('recoverFiles', () => {
  it('recovers a folder, one result per file, and refuses to overwrite on a second run', async () => {
    const out = join(work, 'lib-out')
    const progress: number[] = []
    const results = await recoverFiles({
      vaultKey,
      vaultId,
      inputs: [join(work, 'good')],
      outDir: out,
      onProgress: (p) => progress.push(p.bytesDone),
    })
    expect(results.map((r) => r.status)).toEqual(['recovered', 'recovered', 'recovered'])
    expect(listFiles(out)).toEqual(['empty', 'letter.txt', 'photos/holiday.jpg'])
    for (const [name, plain] of originals) expect(readFileSync(join(out, name)).equals(plain)).toBe(true)
    expect(progress.length).toBeGreaterThan(0)

    writeFileSync(join(out, 'letter.txt'), 'edited by the heir')
    const again = await recoverFiles({ vaultKey, vaultId, inputs: [join(work, 'good')], outDir: out })
    // The edited file is left alone; the untouched ones are already there, identical: kept.
    const byOutput = Object.fromEntries(again.map((r) => [r.output?.slice(out.length + 1), r]))
    expect(byOutput['letter.txt']).toMatchObject({ status: 'skipped', reason: 'exists' })
    expect(byOutput.empty?.status).toBe('kept')
    expect(byOutput['photos/holiday.jpg']?.status).toBe('kept')
    expect(readFileSync(join(out, 'letter.txt'), 'utf8')).toBe('edited by the heir')
  })

  it('one bad file does not stop the others, and nothing is written for it', async () => {
    const out = join(work, 'lib-mixed')
    const results = await recoverFiles({
      vaultKey,
      vaultId,
      inputs: [join(work, 'mixed'), join(work, 'missing')],
      outDir: out,
    })
    const byName = Object.fromEntries(results.map((r) => [r.input.split('/').pop(), r]))
    expect(byName.missing).toMatchObject({ status: 'failed', reason: 'unreadable' })
    expect(byName['fine.txt.vault']).toMatchObject({ status: 'recovered', bytes: 4 })
    expect(byName['tampered.jpg.vault']).toMatchObject({ status: 'failed', reason: 'damaged' })
    expect(byName['cut.jpg.vault']).toMatchObject({ status: 'failed' })
    expect(byName['other-vault.vault']).toMatchObject({ status: 'failed', reason: 'wrong-key' })
    // No partial output and no temp files left behind.
    expect(listFiles(out)).toEqual(['fine.txt'])
  })

  it('rebuilds the key from shares, QR images and the owner kit', async () => {
    const qr = join(work, 'share3.png')
    writeFileSync(qr, await shareQrPng(shares[2]!))
    const fromShares = await recoverVaultKey({
      shareWords: [encodeShareWords(shares[0]!)],
      shareQrImages: [qr],
    })
    expect(Buffer.from(fromShares.vaultKey).equals(Buffer.from(vaultKey))).toBe(true)
    expect(fromShares.vaultId).toBe(vaultId)
    const fromOwner = await recoverVaultKey({ ownerKitWords: encodeOwnerKitWords({ vaultKey, vaultId }) })
    expect(fromOwner.source).toBe('owner-kit')
    expect(fromOwner.fingerprint).toBe(fromShares.fingerprint)
  })
})

describe('recover CLI', () => {
  it('--help documents the flags', async () => {
    const { code, stdout } = await recover(['--help'])
    expect(code).toBe(0)
    for (const flag of [
      '--share-words',
      '--share-file',
      '--share-qr',
      '--owner-kit',
      '--out',
      '--vault',
      '.vault',
    ]) {
      expect(stdout).toContain(flag)
    }
  })

  it('unpacks bundles: one line per file inside, an older copy listed as older; no manifest: exit 1', async () => {
    const folder = join(work, 'bundles')
    mkdirSync(folder)
    const bundle = async (name: string, createdAtMs: number, files: Record<string, string>) => {
      const entries = Object.entries(files).map(([path, text]) => ({
        identity: { path, size: Buffer.byteLength(text) },
        content: () => [Buffer.from(text)],
      }))
      writeFileSync(
        join(folder, name),
        await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs })),
      )
    }
    await bundle('first.vault', Date.UTC(2030, 0, 1), { 'notes/a.txt': 'old a', 'b.txt': 'b' })
    await bundle('second.vault', Date.UTC(2030, 0, 2), { 'notes/a.txt': 'new a' })
    const out = join(work, 'cli-bundles')
    const { code, stdout, stderr } = await recover([
      '--owner-kit',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      '--out',
      out,
      folder,
    ])
    // Bundles of version 2 without the vault's list: it was lost or withheld (FORMAT.md 3.11).
    expect(code).toBe(1)
    expect(stderr).toContain("Exit status 1: the vault's list of files is missing")
    const lines = stdout.trim().split('\n')
    expect(lines).toEqual([
      // Names isolated (FSI ... PDI) with their hidden characters shown: src/shared/untrusted-text.ts.
      `ok       ${isolateName(join(folder, 'second.vault'))} [${isolateName('notes/a.txt')}] -> ${isolateName(join(out, 'notes/a.txt'))} (5 bytes)`,
      `ok       ${isolateName(join(folder, 'first.vault'))} [${isolateName('b.txt')}] -> ${isolateName(join(out, 'b.txt'))} (1 bytes)`,
      // The copies left out come after those written.
      expect.stringMatching(
        /^older {4}.*first\.vault\u2069 \[\u2068notes\/a\.txt\u2069\]: A newer copy of this file \(in second\.vault, written 2030-01-02 00:00 UTC\)/,
      ),
    ])
    expect(stderr).toContain("No list of the vault's files (manifest) was found")
    expect(stderr).toContain(`All 2 file(s) recovered into ${out}. 1 older copy of files left out`)
    expect(listFiles(out)).toEqual(['b.txt', 'notes/a.txt'])
    expect(readFileSync(join(out, 'notes/a.txt'), 'utf8')).toBe('new a')
  })

  it('recovers from two guardians (typed words and a text file) and exits 0', async () => {
    const shareFile = join(work, 'share2.txt')
    writeFileSync(shareFile, encodeShareWords(shares[1]!).toUpperCase().replaceAll(' ', '\n'))
    const out = join(work, 'cli-good')
    const { code, stdout, stderr } = await recover([
      '--share-words',
      encodeShareWords(shares[0]!),
      '--share-file',
      shareFile,
      '--out',
      out,
      join(work, 'good'),
    ])
    expect(stderr).toContain(`vault ${vaultId}`)
    expect(stderr).toMatch(/Recovered by the vault's newest list of files: number 1, .* naming 3 file\(s\)/)
    expect(code).toBe(0)
    expect(stdout.split('\n').filter((l) => l.startsWith('ok')).length).toBe(3)
    for (const [name, plain] of originals) expect(readFileSync(join(out, name)).equals(plain)).toBe(true)
  })

  it('takes a QR image and checks the key without files (--check)', async () => {
    const qr = join(work, 'cli-share1.png')
    writeFileSync(qr, await shareQrPng(shares[0]!))
    const shareFile = join(work, 'cli-share3.txt')
    writeFileSync(shareFile, `\n  ${encodeShareWords(shares[2]!)}  \n`)
    const { code, stderr } = await recover(['--share-qr', qr, '--share-file', shareFile, '--check'])
    expect(code).toBe(0)
    expect(stderr).toContain(`fingerprint ${shares[0]!.fingerprint}`)
  })

  it('exits 1 when any file fails, with one JSON result per file', async () => {
    const out = join(work, 'cli-mixed')
    const { code, stdout } = await recover([
      '--owner-kit',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      '--json',
      '--out',
      out,
      join(work, 'mixed'),
    ])
    expect(code).toBe(1)
    const results = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(results.map((r) => r.status).sort()).toEqual(['failed', 'failed', 'failed', 'recovered'])
    expect(listFiles(out)).toEqual(['fine.txt'])
  })

  it('leaves out a mistyped extra kit when the others are enough, and says so', async () => {
    const words = encodeShareWords(shares[0]!).split(' ')
    words[6] = 'abandn'
    const result = await recover([
      '--share-words',
      words.join(' '),
      '--share-words',
      encodeShareWords(shares[1]!),
      '--share-words',
      encodeShareWords(shares[2]!),
      '--check',
    ])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain(
      "Left out: Share words #1 cannot be read, so it was left out: Word 7, 'abandn'",
    )
  })

  it('refuses too few shares, a misspelled word and a wrong vault id with exit 2', async () => {
    const one = await recover(['--share-words', encodeShareWords(shares[0]!), '--out', join(work, 'x'), work])
    expect(one.code).toBe(2)
    expect(one.stderr).toContain('2 of 3 needed; you entered 1')

    const words = encodeShareWords(shares[0]!).split(' ')
    words[6] = 'abandn'
    const typo = await recover([
      '--share-words',
      words.join(' '),
      '--share-words',
      encodeShareWords(shares[1]!),
      '--check',
    ])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain(
      "Share words #1: Word 7, 'abandn', is not in the word list — check the spelling",
    )

    const wrongVault = await recover([
      '--owner-kit',
      encodeOwnerKitWords({ vaultKey, vaultId }),
      '--vault',
      'v2',
      '--check',
    ])
    expect(wrongVault.code).toBe(2)
    expect(wrongVault.stderr).toContain(`belong to vault '${vaultId}'`)

    const usage = await recover(['--owner-kit', encodeOwnerKitWords({ vaultKey, vaultId })])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--out')
  })

  it('does not mark-compact its small heap over and over while 200 MB go through it', async () => {
    const folder = join(work, 'large')
    mkdirSync(folder)
    const size = 200 << 20
    const piece = Buffer.alloc(1 << 20, 7)
    const pieces = (function* () {
      for (let k = 0; k < 200; k++) yield piece
    })()
    const identity = { path: 'large.bin', size }
    await pipeline(
      Readable.from(encryptStream(pieces, { vaultKey, vaultId, identity, ...nodeCipher(false) })),
      createWriteStream(join(folder, 'large.bin.vault')),
    )
    const out = join(work, 'cli-large')
    const traced = await run(
      process.execPath,
      ['--trace-gc', cli, '--owner-kit', encodeOwnerKitWords({ vaultKey, vaultId }), '--out', out, folder],
      { maxBuffer: 16 << 20 },
    ).catch((error: { stdout: string; stderr: string }) => error)
    expect(traced.stderr).toContain('All 1 file(s) recovered')
    expect(statSync(join(out, 'large.bin')).size).toBe(size)
    expect(traced.stdout).toContain('Scavenge')
    // With V8's default limits, the heap of ~8 MB started a full collection every ~90 ms: ~20 here.
    expect((traced.stdout.match(/Mark-Compact/g) ?? []).length).toBeLessThan(6)
    rmSync(folder, { recursive: true })
    rmSync(out, { recursive: true })
  }, 60_000)
})
