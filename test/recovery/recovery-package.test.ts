// The heir's recovery tool as a package (scripts/pack-recovery.mjs): packed with the project's script,
// installed from the tarball into a folder outside the project, offline, and run there as an heir would,
// with nothing of the project in reach. A file or a package left out of the tarball fails here.

import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shareQrPng } from '../../src/main/core/printable/share-qr'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeOwnerKitWords,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format/index'

const ROOT = join(import.meta.dirname, '../..')
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version
const TARBALL = `vault-recover-${VERSION}.tgz`
const run = promisify(execFile)

const vaultKey = generateVaultKey()
const vaultId = '3b6f0c1e-9a52-4d7e-8f21-5c0d9e4a7b13'
let temp: string
/** The heir's machine: a folder holding only the tarball, and the package installed from it. */
let heir: string
let env: NodeJS.ProcessEnv
let bin: string
/** What `npm run pack:recovery` printed. */
let packOutput: string

/**
 * What the heir's shell would have: no NODE_PATH or NODE_OPTIONS (they could reach the project's modules
 * or load tsx), no npm_* settings of the `npm test` around this run, no node_modules/.bin on the PATH, a
 * home and an npm cache of its own, and no registry traffic.
 */
function heirEnvironment(home: string): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter)
  const kept = Object.fromEntries(
    ['SystemRoot', 'TEMP', 'TMP', 'TMPDIR', 'LANG']
      .filter((name) => process.env[name] !== undefined)
      .map((name) => [name, process.env[name]]),
  )
  return {
    ...kept,
    PATH: path,
    HOME: home,
    USERPROFILE: home,
    npm_config_cache: join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
}

async function inHeirFolder(file: string, args: string[]) {
  try {
    const options = { cwd: heir, env, maxBuffer: 16 * 1024 * 1024, timeout: 30_000 }
    const { stdout, stderr } = await run(file, args, options)
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number | null; killed?: boolean; stdout: string; stderr: string }
    // A tool that finished its work but kept running (a worker thread holding it) is stopped, and fails.
    const stopped = e.killed ? '\n(stopped after 30 s: the process did not exit)' : ''
    return { code: e.code, stdout: e.stdout, stderr: `${e.stderr}${stopped}` }
  }
}

/** The installed tool, with node:os telling it of 8 cores so the node backend decrypts on worker threads. */
function recover(args: string[]) {
  return inHeirFolder(process.execPath, ['--import', join(temp, 'eight-cores.mjs'), bin, ...args])
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'vault-recover-package-'))
  const packed = join(temp, 'packed')
  packOutput = (
    await run(process.execPath, [join(ROOT, 'scripts/pack-recovery.mjs'), '--out', packed], { cwd: ROOT })
  ).stdout

  heir = join(temp, 'heir')
  mkdirSync(heir)
  copyFileSync(join(packed, TARBALL), join(heir, TARBALL))
  // Its own manifest, so npm installs here rather than in a folder further up.
  writeFileSync(join(heir, 'package.json'), '{ "name": "heir", "private": true }\n')
  env = heirEnvironment(join(temp, 'home'))
  const installed = await inHeirFolder('npm', ['install', '--no-audit', '--no-fund', `./${TARBALL}`])
  expect(installed.stderr).not.toMatch(/ERR!/)
  expect(installed.code).toBe(0)
  bin = join(heir, 'node_modules/.bin/vault-recover')

  // availableParallelism() decides whether the node backend uses worker threads; this machine may have 2.
  writeFileSync(
    join(temp, 'eight-cores.mjs'),
    "import os from 'node:os'\nimport { syncBuiltinESMExports } from 'node:module'\nos.availableParallelism = () => 8\nsyncBuiltinESMExports()\n",
  )
})

afterAll(() => {
  if (temp) rmSync(temp, { recursive: true, force: true })
})

describe('the recovery package', () => {
  it('holds the tool, its documents and notices, and depends on nothing', async () => {
    const { stdout } = await run('tar', ['-tzf', join(heir, TARBALL)])
    expect(stdout.trim().split('\n').sort()).toEqual([
      'package/README.md',
      'package/THIRD-PARTY-NOTICES.md',
      // The worker threads' modules, which the tool starts from beside itself (src/node-cipher).
      'package/bin/chunk-worker.js',
      'package/bin/file-read-thread.js',
      'package/bin/vault-recover.js',
      'package/docs/FORMAT.md',
      'package/docs/RECOVERY.md',
      'package/package.json',
      // The recovery page, for an heir with only a browser, and its SHA-256 (sha256sum's format).
      'package/vault-recovery.html',
      'package/vault-recovery.html.sha256',
    ])
    const installed = join(heir, 'node_modules')
    expect(readdirSync(installed).filter((name) => !name.startsWith('.'))).toEqual(['vault-recover'])
    const manifest = JSON.parse(readFileSync(join(installed, 'vault-recover/package.json'), 'utf8'))
    expect(manifest).toMatchObject({ name: 'vault-recover', version: VERSION, type: 'module' })
    expect(manifest.dependencies).toBeUndefined()
    expect(readFileSync(join(installed, 'vault-recover/README.md'), 'utf8')).toContain(
      `npx ./${TARBALL} --help`,
    )
    const notices = readFileSync(join(installed, 'vault-recover/THIRD-PARTY-NOTICES.md'), 'utf8')
    for (const name of ['@noble/ciphers', '@scure/bip39', 'shamir-secret-sharing', 'jsqr', 'pngjs', 'got']) {
      expect(notices).toContain(`## ${name} `)
    }
  })

  it('carries the recovery page as built, its SHA-256 printed by the pack, beside it and in the packed RECOVERY.md', async () => {
    const packed = join(heir, 'node_modules/vault-recover')
    const page = readFileSync(join(packed, 'vault-recovery.html'))
    const sha = createHash('sha256').update(page).digest('hex')
    // The page the project's build writes, byte for byte.
    expect(page.equals(readFileSync(join(ROOT, 'out/recovery-page/vault-recovery.html')))).toBe(true)
    expect(packOutput).toContain(`recovery page vault-recovery.html SHA-256 ${sha}`)
    expect(readFileSync(join(packed, 'vault-recovery.html.sha256'), 'utf8')).toBe(
      `${sha}  vault-recovery.html\n`,
    )
    const guide = readFileSync(join(packed, 'docs/RECOVERY.md'), 'utf8')
    expect(guide).toContain(`The SHA-256 of this version's page: \`${sha}\``)
    expect(guide).not.toContain('recovery-page-sha256')
    // sha256sum checks the copy the way RECOVERY.md tells the heir to.
    const { stdout } = await run('sha256sum', ['-c', 'vault-recovery.html.sha256'], { cwd: packed })
    expect(stdout.trim()).toBe('vault-recovery.html: OK')
  })

  it('runs with npx from the tarball, the way its README says', async () => {
    const { code, stdout } = await inHeirFolder('npx', ['--yes', `./${TARBALL}`, '--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('Vault recovery tool')
    expect(stdout).toContain(`npx ./${TARBALL} --service https://vault.example.org --token hk_`)
    expect(stdout).not.toContain('npm run recover')
  })

  it('recovers files and a bundle with two guardians (words and a QR photo), byte for byte', async () => {
    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
    const encrypted = join(temp, 'encrypted')
    mkdirSync(join(encrypted, 'photos'), { recursive: true })
    const originals = new Map<string, Buffer>([
      ['letter.txt', Buffer.from('To my family: the passwords are in the blue folder.\n')],
      // Several worker batches' worth of chunks, not a whole number of them.
      ['photos/holiday.jpg', randomBytes(3 * 1024 * 1024 + 4321)],
      ['empty', Buffer.alloc(0)],
    ])
    const filesAt = Date.UTC(2029, 11, 31)
    const bundledAt = Date.UTC(2030, 0, 1)
    for (const [path, plain] of originals) {
      const identity = { path, size: plain.length, writtenAtMs: filesAt }
      const blob = await collectBytes(encryptStream([plain], { vaultKey, vaultId, identity }))
      writeFileSync(join(encrypted, `${path}.vault`), blob)
    }
    const small = new Map(
      Array.from({ length: 20 }, (_, i) => [`notes/note-${i}.txt`, Buffer.from(`note ${i}\n`.repeat(i))]),
    )
    const entries = [...small].map(([path, plain]) => ({
      identity: { path, size: plain.length },
      content: () => [plain],
    }))
    // The vault's list of every file rides in the bundle, as the owner's app sends it (FORMAT.md 3.10).
    const listed = (files: Map<string, Buffer>, writtenAtMs: number) =>
      [...files].map(([path, plain]) => ({
        path,
        size: plain.length,
        sha256: createHash('sha256').update(plain).digest('hex'),
        writtenAtMs,
      }))
    const manifest = await encryptManifest(
      {
        sequence: 1,
        writtenAtMs: bundledAt,
        entries: [...listed(originals, filesAt), ...listed(small, bundledAt)],
      },
      { vaultKey, vaultId },
    )
    writeFileSync(
      join(encrypted, 'bundle-1.vault'),
      await collectBytes(
        encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: bundledAt, manifest }),
      ),
    )
    const qr = join(heir, 'guardian-3.png')
    writeFileSync(qr, await shareQrPng(shares[2]!))

    const out = join(heir, 'recovered')
    const { code, stdout, stderr } = await recover([
      '--share-words',
      encodeShareWords(shares[0]!),
      '--share-qr',
      basename(qr),
      '--out',
      out,
      encrypted,
    ])
    expect(stderr).toContain(`vault ${vaultId}, fingerprint ${shares[0]!.fingerprint}`)
    expect(code).toBe(0)
    expect(stdout.split('\n').filter((line) => line.startsWith('ok ')).length).toBe(
      originals.size + small.size,
    )
    const expected = new Map([...originals, ...small])
    expect(listFiles(out)).toEqual([...expected.keys()].sort())
    for (const [path, plain] of expected) expect(readFileSync(join(out, path)).equals(plain)).toBe(true)
  })

  it('refuses a damaged file and too few kits, as the tool in the project does', async () => {
    const shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
    const tooFew = await recover(['--share-words', encodeShareWords(shares[1]!), '--check'])
    expect(tooFew.code).toBe(2)
    expect(tooFew.stderr).toContain('2 of 3 needed; you entered 1')

    const damaged = join(temp, 'damaged')
    mkdirSync(damaged)
    const plain = randomBytes(100_000)
    const blob = await collectBytes(
      encryptStream([plain], { vaultKey, vaultId, identity: { path: 'scan.pdf', size: plain.length } }),
    )
    blob[60_000]! ^= 1
    writeFileSync(join(damaged, 'scan.pdf.vault'), blob)
    const out = join(heir, 'recovered-damaged')
    const ownerKit = encodeOwnerKitWords({ vaultKey, vaultId })
    const result = await recover(['--owner-kit', ownerKit, '--json', '--out', out, damaged])
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ status: 'failed', reason: 'damaged' })
  })

  it('reaches for the service with the heir access code, and says when it cannot', async () => {
    const ownerKit = encodeOwnerKitWords({ vaultKey, vaultId })
    const { code, stderr } = await recover([
      '--owner-kit',
      ownerKit,
      '--service',
      'http://127.0.0.1:9',
      '--token',
      'hk_test',
      '--out',
      join(heir, 'from-service'),
    ])
    expect(code).toBe(1)
    expect(stderr).toMatch(/could not be reached.*start the recovery again/s)
  })
})
