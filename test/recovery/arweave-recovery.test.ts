// Heir recovery from Arweave with the service gone: real encrypted blobs (a multi-chunk file, a bundle, two
// copies of one file) are put on arlocal by the service's ArweaveBlobStore, beside another vault's blob and a
// stranger's transaction carrying this vault's tags; the recovery library and the CLI find the vault's
// blobs from the kits alone, through GraphQL, and decrypt them as from a service.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import type Arweave from 'arweave'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_CIPHER_WORKERS } from '../../scripts/node-cipher-workers.mjs'
import {
  ARWEAVE_DOWNLOADS_FOLDER,
  arweaveVaultRef,
  findVaultBlobs,
  recoverFromArweave,
} from '../../src/recovery/index'
import { type ArweaveBlobStore, openArweaveBlobStore, vaultRefOf } from '../../src/service/arweave-blob-store'
import { SSS_PRESET_SHAPE } from '../../src/shared/api'
import {
  collectBytes,
  encodeShareWords,
  encryptBundleStream,
  encryptManifest,
  encryptStream,
  type GuardianShare,
  generateVaultKey,
  splitVaultKey,
} from '../../src/vault-format/index'
import { freePort, type LocalArweave, startLocalArweave } from '../service/local-arweave'

const run = promisify(execFile)
const vaultKey = generateVaultKey()
const vaultId = '5e0d7c3b-2a41-4f8e-9b6c-0d1e2f3a4b5c'
let temp: string
let network: LocalArweave
let arweave: Arweave
let gateway: string
let store: ArweaveBlobStore
let shares: GuardianShare[]
let cli: string
const txIds: Record<string, string> = {}
let strangerTx: string
let tinyTx: string
let stranger: Awaited<ReturnType<Arweave['wallets']['generate']>>
let oldWillBlob: Uint8Array

const scan = randomBytes(3 * 1024 * 1024 + 777)
const notes = new Map(
  Array.from({ length: 6 }, (_, i) => [`notes/note-${i}.txt`, Buffer.from(`note ${i}\n`.repeat(i + 1))]),
)
const oldWill = Buffer.from('First draft: everything to the cat.\n')
const middleWill = Buffer.from('Second draft: the house to Ana.\n')
const newWill = Buffer.from('Final: the house to Ana, the books to Ben.\n')

async function mine(): Promise<void> {
  expect((await fetch(`${gateway}/mine`)).status).toBe(200)
}

async function putBlob(name: string, blob: Uint8Array, forVault = vaultId): Promise<void> {
  const tempPath = store.newTempPath()
  writeFileSync(tempPath, blob)
  txIds[name] = await store.put(tempPath, {
    sha256Hex: createHash('sha256').update(blob).digest('hex'),
    size: blob.length,
    labels: { vaultId: forVault, assetId: name },
  })
}

function fileBlob(path: string, plain: Buffer, forVault = vaultId): Promise<Uint8Array> {
  return collectBytes(
    encryptStream([plain], { vaultKey, vaultId: forVault, identity: { path, size: plain.length } }),
  )
}

beforeAll(async () => {
  network = await startLocalArweave('arweave-recovery-')
  ;({ gateway, arweave } = network)
  temp = network.dir
  // The service's operator wallet and store.
  store = await openArweaveBlobStore({
    gateway,
    walletFile: network.walletFile,
    cacheDir: join(temp, 'service-cache'),
  })

  shares = await splitVaultKey(vaultKey, vaultId, SSS_PRESET_SHAPE.standard)
  oldWillBlob = await fileBlob('letters/will.txt', oldWill)
  await putBlob('old will', oldWillBlob)
  await mine()
  await new Promise((resolve) => setTimeout(resolve, 20))
  await putBlob('new will', await fileBlob('letters/will.txt', newWill))
  await putBlob('scan', await fileBlob('photos/scan.jpg', scan))
  // The bundle also holds a draft of the will, dated an hour ago: the single-file blob of the final will,
  // which carries no date inside, is newer only by its block's time.
  const entries = [...notes, ['letters/will.txt', middleWill] as const].map(([path, plain]) => ({
    identity: { path, size: plain.length },
    content: () => [plain],
  }))
  const anHourAgo = Date.now() - 60 * 60_000
  await putBlob(
    'notes',
    await collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: anHourAgo })),
  )
  // Another vault of the same service: never found for this one.
  await putBlob(
    'other vault',
    await fileBlob('theirs.txt', Buffer.from('not yours'), 'another-vault-id'),
    'another-vault-id',
  )

  // A stranger labels a transaction with this vault's tags (the network lets anyone do so).
  stranger = await arweave.wallets.generate()
  await fetch(`${gateway}/mint/${await arweave.wallets.jwkToAddress(stranger)}/1000000000000000`)
  const junk = await arweave.createTransaction({ data: randomBytes(5000) }, stranger)
  junk.addTag('App-Name', 'Vault-Desktop')
  junk.addTag('Vault-Ref', arweaveVaultRef(vaultId))
  await arweave.transactions.sign(junk, stranger)
  expect((await arweave.transactions.post(junk)).status).toBe(200)
  strangerTx = junk.id
  // And one too short to be any encrypted file: left out without being downloaded.
  const tiny = await arweave.createTransaction({ data: randomBytes(40) }, stranger)
  tiny.addTag('App-Name', 'Vault-Desktop')
  tiny.addTag('Vault-Ref', arweaveVaultRef(vaultId))
  await arweave.transactions.sign(tiny, stranger)
  expect((await arweave.transactions.post(tiny)).status).toBe(200)
  tinyTx = tiny.id
  await mine()

  // The recovery tool as heirs run it, bundled as scripts/build-cli.mjs does (inside the project, so
  // that its packages resolve), in a folder of this test's own.
  cli = join(process.cwd(), 'out/test-arweave-recovery/recover.js')
  await build({
    entryPoints: { recover: 'src/recovery/cli.ts', ...NODE_CIPHER_WORKERS },
    outdir: dirname(cli),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'warning',
  })
})

afterAll(async () => {
  await network?.stop()
  if (cli) rmSync(dirname(cli), { recursive: true, force: true })
})

async function recoverCli(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('finding a vault on Arweave', () => {
  it('derives the same Vault-Ref as the service tags blobs with', () => {
    expect(arweaveVaultRef(vaultId)).toBe(vaultRefOf(vaultId))
    // The documented derivation, computed here independently.
    const expected = createHash('sha256').update(`vault-desktop/arweave/v1\u0000${vaultId}`).digest('hex')
    expect(arweaveVaultRef(vaultId)).toBe(expected)
  })

  it('is what docs/FORMAT.md section 9 says: the tags on a blob, and the Vault-Ref examples', async () => {
    const page = readFileSync(join(import.meta.dirname, '../../docs/FORMAT.md'), 'utf8')
    const section = page.slice(page.indexOf('## 9. Finding a vault on Arweave'))
    for (const [, id, ref] of section.matchAll(/vault id {11}(\S+)\nVault-Ref {10}([0-9a-f]{64})/g)) {
      expect(arweaveVaultRef(id!)).toBe(ref)
    }
    expect([...section.matchAll(/vault id {11}/g)]).toHaveLength(2)
    const documented = [...section.matchAll(/^\| `([A-Za-z0-9-]+)` \| `?([^|`]+)/gm)].map(([, name]) => name)
    const tx = (await (await fetch(`${gateway}/tx/${txIds.scan}`)).json()) as {
      tags: { name: string; value: string }[]
    }
    const posted = tx.tags.map((t) => Buffer.from(t.name, 'base64url').toString())
    expect(posted).toEqual(documented)
    expect(section).toContain('| `App-Name` | `Vault-Desktop` |')
    expect(section).toContain('| `Vault-Tags-Version` | `1`')
  })

  it("finds the vault's blobs (and the stranger's) by tags through GraphQL, with paging", async () => {
    const found = await findVaultBlobs(gateway, vaultId)
    const ids = found.map((b) => b.txId).sort()
    expect(ids).toEqual(
      [txIds['old will'], txIds['new will'], txIds.scan, txIds.notes, strangerTx, tinyTx].sort() as string[],
    )
    const scanBlob = found.find((b) => b.txId === txIds.scan)!
    expect(scanBlob.sha256Hex).toBe(
      createHash('sha256')
        .update(readFileSync(store.copyPathOf(scanBlob.sha256Hex!)))
        .digest('hex'),
    )
    expect(scanBlob.owner).toBe(store.address)
    expect(scanBlob.minedAtMs).toBeGreaterThan(Date.now() - 10 * 60_000)
  })

  it('follows the pages of a long answer', async () => {
    // Gateways answer at most 100 per page; at 2 per page, the 6 transactions take three pages.
    const pages: number[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).endsWith('/graphql') && init?.body) {
        const body = JSON.parse(String(init.body))
        body.query = body.query.replace('first: 100', 'first: 2')
        pages.push(1)
        return original(input, { ...init, body: JSON.stringify(body) })
      }
      return original(input, init)
    }) as typeof fetch
    try {
      expect(await findVaultBlobs(gateway, vaultId)).toHaveLength(6)
    } finally {
      globalThis.fetch = original
    }
    expect(pages.length).toBe(3)
  })
})

describe('recoverFromArweave', () => {
  it('recovers every file from the kits alone, newest copy first, strangers left out', async () => {
    const out = join(temp, 'lib-out')
    // A cut-off download from an earlier run (garbage, in fact): arlocal ignores the range, so it is
    // fetched again whole.
    mkdirSync(join(out, ARWEAVE_DOWNLOADS_FOLDER), { recursive: true })
    writeFileSync(join(out, ARWEAVE_DOWNLOADS_FOLDER, `${txIds.scan}.vault.part`), randomBytes(1000))
    const phases = new Set<string>()
    const report = await recoverFromArweave({
      gateway,
      vaultId,
      vaultKey,
      outDir: out,
      onProgress: (p) => phases.add(p.phase),
    })
    expect(report.stopped).toBeUndefined()
    expect(report.foreign).toEqual(
      expect.arrayContaining([
        { txId: strangerTx, owner: expect.any(String) },
        { txId: tinyTx, owner: expect.any(String) },
      ]),
    )
    expect(report.foreign).toHaveLength(2)
    expect(readFileSync(join(out, 'photos/scan.jpg')).equals(scan)).toBe(true)
    expect(readFileSync(join(out, 'letters/will.txt')).equals(newWill)).toBe(true)
    for (const [path, plain] of notes) expect(readFileSync(join(out, path)).equals(plain)).toBe(true)
    expect(existsSync(join(out, 'theirs.txt'))).toBe(false)
    const byStatus = (status: string) => report.results.filter((r) => r.status === status)
    expect(byStatus('recovered')).toHaveLength(2 + notes.size)
    expect(byStatus('superseded')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ input: `arweave:${txIds['old will']}` }),
        expect.objectContaining({ input: `arweave:${txIds.notes}`, entry: 'letters/will.txt' }),
      ]),
    )
    expect(byStatus('superseded')).toHaveLength(2)
    expect(report.results).toHaveLength(4 + notes.size)
    expect(existsSync(join(out, ARWEAVE_DOWNLOADS_FOLDER))).toBe(false)
    expect([...phases]).toEqual(['looking', 'downloading', 'checking'])
  })

  it('stops with words for the heir when the gateway cannot be reached', async () => {
    const report = await recoverFromArweave({
      gateway: `http://127.0.0.1:${await freePort()}`,
      vaultId,
      vaultKey,
      outDir: join(temp, 'unreachable-out'),
    })
    expect(report.stopped).toMatchObject({
      code: 'GATEWAY_UNREACHABLE',
      message: expect.stringMatching(/could not be reached .*ECONNREFUSED.*start the recovery again/),
    })
    const invalid = await recoverFromArweave({ gateway: 'arweave.net', vaultId, vaultKey, outDir: temp })
    expect(invalid.stopped).toMatchObject({ code: 'INVALID_ADDRESS' })
  })
})

describe('recover --from-arweave', () => {
  it("recovers with two guardians' words and a gateway, and says what it left out", async () => {
    const out = join(temp, 'cli-out')
    const { code, stdout, stderr } = await recoverCli([
      '--share-words',
      encodeShareWords(shares[0]!),
      '--share-words',
      encodeShareWords(shares[2]!),
      '--from-arweave',
      gateway,
      '--out',
      out,
    ])
    expect(stderr).toContain(`All ${2 + notes.size} file(s) recovered from Arweave`)
    expect(stderr).toContain(`2 file(s) on Arweave carry this vault's label but are not files of this vault`)
    expect(stderr).toContain(strangerTx)
    // These blobs are of format 3 but no manifest was stored with them: said, and exit status 1.
    expect(stderr).toMatch(/No list of the vault's files \(manifest\) was found.* lost or withheld/)
    expect(code).toBe(1)
    expect(stdout).toContain(`older    \u2068arweave:${txIds['old will']}\u2069`)
    expect(readFileSync(join(out, 'letters/will.txt')).equals(newWill)).toBe(true)
    expect(readFileSync(join(out, 'photos/scan.jpg')).equals(scan)).toBe(true)
  })

  it("--owner reads only the service wallet's transactions; without it, several wallets are a warning", async () => {
    const words = [
      '--share-words',
      encodeShareWords(shares[0]!),
      '--share-words',
      encodeShareWords(shares[1]!),
    ]
    const all = await recoverCli([...words, '--from-arweave', gateway, '--out', join(temp, 'owners-all')])
    expect(all.stderr).toMatch(
      /Warning: 2 different Arweave wallets posted transactions with this vault's label/,
    )
    expect(all.stderr).toContain(`${store.address} (4)`)
    const one = await recoverCli([
      ...words,
      '--from-arweave',
      gateway,
      '--owner',
      store.address,
      '--out',
      join(temp, 'owners-one'),
    ])
    expect(one.stderr).toContain("Exit status 1: the vault's list of files is missing")
    expect(one.stderr).not.toContain('Warning')
    expect(one.stderr).not.toContain(strangerTx)
    expect(one.stderr).toContain(`All ${2 + notes.size} file(s) recovered from Arweave`)
    const report = await recoverFromArweave({
      gateway,
      vaultId,
      vaultKey,
      outDir: join(temp, 'owners-lib'),
      owner: store.address,
    })
    expect(report.found.map((b) => b.owner)).toEqual(Array(4).fill(store.address))
    expect(report.foreign).toEqual([])
    // About one address in 64 starts with "-": it is still the value of --owner, not an option. This one
    // posted nothing (when the service's own starts with "-", its second character is changed).
    const absent =
      store.address[0] === '-'
        ? `-${store.address[1] === 'A' ? 'B' : 'A'}${store.address.slice(2)}`
        : `-${store.address.slice(1)}`
    const dashed = await recoverCli([
      ...words,
      '--from-arweave',
      gateway,
      '--owner',
      absent,
      '--out',
      join(temp, 'owners-dashed'),
    ])
    expect(dashed.stderr).not.toMatch(/ambiguous|Run with --help/)
    expect(dashed.code).toBe(1)
    expect(dashed.stderr).toContain(`posted by the wallet ${absent} were found`)
    const bad = await recoverCli([...words, '--from-arweave', gateway, '--owner', 'x', '--out', temp])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('"x" is not an Arweave wallet address')
  })

  it('says when nothing of the vault is on the network, and refuses a second source', async () => {
    const otherKey = generateVaultKey()
    const otherShares = await splitVaultKey(otherKey, 'a-vault-never-stored', SSS_PRESET_SHAPE.standard)
    const none = await recoverCli([
      '--share-words',
      encodeShareWords(otherShares[0]!),
      '--share-words',
      encodeShareWords(otherShares[1]!),
      '--from-arweave',
      gateway,
      '--out',
      join(temp, 'none-out'),
    ])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('No files of vault a-vault-never-stored were found on Arweave')
    expect(none.stderr).toContain(arweaveVaultRef('a-vault-never-stored'))

    const both = await recoverCli([
      '--share-words',
      encodeShareWords(shares[0]!),
      '--from-arweave',
      gateway,
      '--service',
      'https://vault.example.org',
      '--token',
      'hk_x',
      '--out',
      join(temp, 'both-out'),
    ])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('Give one place to recover from')
  })
})

/** A transaction with the vault's tags posted by someone else's wallet (anyone can), then mined. */
async function postAsStranger(data: Uint8Array, forVault = vaultId): Promise<string> {
  const tx = await arweave.createTransaction({ data }, stranger)
  tx.addTag('App-Name', 'Vault-Desktop')
  tx.addTag('Vault-Ref', arweaveVaultRef(forVault))
  tx.addTag('Content-SHA256', createHash('sha256').update(data).digest('hex'))
  await arweave.transactions.sign(tx, stranger)
  expect((await arweave.transactions.post(tx)).status).toBe(200)
  await mine()
  return tx.id
}

describe('the newest copy is what the blobs authenticate, not what the network says', () => {
  it('recovers the newest will although the old one was re-posted in a later block', async () => {
    // The attack of the review: last year's will posted again, so that its block is the newest.
    const reposted = await postAsStranger(oldWillBlob)
    const found = await findVaultBlobs(gateway, vaultId)
    const newest = found.reduce((a, b) => ((b.minedAtMs ?? 0) >= (a.minedAtMs ?? 0) ? b : a))
    expect(newest.txId).toBe(reposted)
    const out = join(temp, 'reposted-out')
    const report = await recoverFromArweave({ gateway, vaultId, vaultKey, outDir: out })
    expect(report.stopped).toBeUndefined()
    expect(readFileSync(join(out, 'letters/will.txt')).equals(newWill)).toBe(true)
    expect(report.results.find((r) => r.input === `arweave:${reposted}`)).toMatchObject({
      status: 'superseded',
    })
  })

  it('names a file the newest manifest lists whose blob is withheld, and exits 1', async () => {
    const listedVault = '0b6e2d4c-8a1f-4e3b-9c5d-7f6a5b4c3d2e'
    const listedShares = await splitVaultKey(vaultKey, listedVault, SSS_PRESET_SHAPE.standard)
    const kept = Buffer.from('kept on the network\n')
    const withheld = Buffer.from('the letter to Ana, never handed over\n')
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    const t = Date.now()
    const listing = (sequence: number, withLetter: boolean) =>
      encryptManifest(
        {
          sequence,
          writtenAtMs: t + sequence,
          entries: [
            { path: 'kept.txt', size: kept.length, sha256: sha(kept), writtenAtMs: t },
            ...(withLetter
              ? [{ path: 'letters/ana.txt', size: withheld.length, sha256: sha(withheld), writtenAtMs: t }]
              : []),
          ],
        },
        { vaultKey, vaultId: listedVault },
      )
    await putBlob(
      'listed kept',
      await collectBytes(
        encryptStream([kept], {
          vaultKey,
          vaultId: listedVault,
          identity: { path: 'kept.txt', size: kept.length, writtenAtMs: t },
        }),
      ),
      listedVault,
    )
    // An older list without the letter, and the newest one with it; the letter's blob never goes up.
    await putBlob('listed manifest 1', await listing(1, false), listedVault)
    await putBlob('listed manifest 2', await listing(2, true), listedVault)
    await mine()
    const report = await recoverFromArweave({
      gateway,
      vaultId: listedVault,
      vaultKey,
      outDir: join(temp, 'withheld-lib'),
    })
    expect(report.manifest).toMatchObject({ sequence: 2, listed: 2, older: 1 })
    expect(report.results.filter((r) => r.status === 'missing').map((r) => r.entry)).toEqual([
      'letters/ana.txt',
    ])
    // Not settled, so the downloads stay for the next run; the files decrypted while they downloaded
    // do not (linked into place, or removed).
    expect(readFileSync(join(temp, 'withheld-lib', 'kept.txt')).equals(kept)).toBe(true)
    const left = readdirSync(join(temp, 'withheld-lib', ARWEAVE_DOWNLOADS_FOLDER))
    expect(left.length).toBeGreaterThan(0)
    expect(left.filter((name) => name.endsWith('.plain'))).toEqual([])
    const { code, stdout, stderr } = await recoverCli([
      '--share-words',
      encodeShareWords(listedShares[0]!),
      '--share-words',
      encodeShareWords(listedShares[1]!),
      '--from-arweave',
      gateway,
      '--out',
      join(temp, 'withheld-cli'),
    ])
    expect(code).toBe(1)
    expect(stdout).toMatch(
      /^MISSING .*letters\/ana\.txt.*: Missing: the vault's newest list of files \(number 2\)/m,
    )
    expect(stderr).toMatch(/Recovered by the vault's newest list of files: number 2/)
    expect(readFileSync(join(temp, 'withheld-cli', 'kept.txt')).equals(kept)).toBe(true)
  })
})
