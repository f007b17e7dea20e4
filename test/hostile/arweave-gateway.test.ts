// An heir's recovery from Arweave through a lying gateway (recoverFromArweave, what `recover
// --from-arweave` runs). Anyone can post a transaction tagged with a vault's reference and a gateway
// can answer anything, so every case checks: nothing written outside the output folder, nothing that
// was there changed, the run ends in bounded time, and the report names what was wrong.
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ARWEAVE_DOWNLOADS_FOLDER,
  type ArweaveRecoveryReport,
  recoverFromArweave,
} from '../../src/recovery/arweave-recovery'
import { localDownloadName } from '../../src/recovery/confined-write'
import { encryptedLength } from '../../src/vault-format'
import { encryptBlobV2 } from '../crypto/support/legacy-writers'
import {
  edgeOf,
  type FakeGatewayOptions,
  type FakeTx,
  readJson,
  startFakeGateway,
  txId,
  wallet,
} from './fake-arweave-gateway'
import { fileBlob, json, manifestBlob, newVault, serveBytes } from './fake-vault-service'
import { contained, makeWorld, type RecordingListener, startElsewhere, type World } from './hostile-world'
import { cutShort, drip, endless, hugeJson, redirect } from './lies'

const cleanup: (World | RecordingListener)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await ('remove' in item ? item.remove() : item.stop())
})

type Vault = ReturnType<typeof newVault>
const OPERATOR = wallet()

async function honestTxs(vault: Vault): Promise<FakeTx[]> {
  return [
    {
      id: txId(),
      owner: OPERATOR,
      data: await fileBlob(vault, 'letters/will.txt', 'the final will'),
      blockSeconds: 1_700_000_000,
    },
    {
      id: txId(),
      owner: OPERATOR,
      data: await fileBlob(vault, 'photos.txt', 'list of photos'),
      blockSeconds: 1_700_000_100,
    },
  ]
}

async function arweaveRecovery(
  build: (c: {
    vault: Vault
    elsewhere: RecordingListener
  }) => Promise<Pick<FakeGatewayOptions, 'txs' | 'lie'>>,
  extra: Record<string, unknown> = {},
) {
  const vault = newVault()
  const world = await makeWorld()
  const elsewhere = await startElsewhere()
  cleanup.push(world, elsewhere)
  const gateway = await startFakeGateway({ vaultId: vault.vaultId, ...(await build({ vault, elsewhere })) })
  cleanup.push(gateway)
  const started = Date.now()
  const { result: report, appeared } = await contained(world, () =>
    recoverFromArweave({
      gateway: gateway.origin,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 500,
      ...extra,
    }),
  )
  expect(Date.now() - started, 'the run ended in bounded time').toBeLessThan(20_000)
  const text = [
    report.stopped?.message ?? '',
    ...report.results.map((r) => `${r.status} ${r.input} ${r.output}: ${r.message}`),
    ...report.foreign.map((f) => `foreign ${f.txId}`),
  ].join('\n')
  if (process.env.HOSTILE_DEBUG) console.log(text)
  return { vault, world, gateway, elsewhere, report: report as ArweaveRecoveryReport, text, appeared }
}

const recovered = (appeared: string[]) =>
  appeared.filter((p) => !p.startsWith('.vault-arweave-downloads')).sort()

describe('Arweave recovery against a lying gateway', () => {
  it('traversal id: a transaction "../../x" is refused by name; nothing lands outside the output folder', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      const planted = await fileBlob(vault, 'planted.txt', 'planted')
      return {
        txs: [...txs, { id: '../../x', owner: OPERATOR, data: planted }],
        // Whatever the path normalises to, the planted bytes are served.
        lie: (request, response, url) =>
          url.pathname.endsWith('/x') ? serveBytes(request, response, planted) : false,
      }
    })
    expect(run.report.stopped?.message).toContain('"../../x" where a transaction id must be')
    expect(recovered(run.appeared)).toEqual([])
  })

  it('endless pages: GraphQL that always has a next page of new transactions stops at a page cap, named', async () => {
    const run = await arweaveRecovery(
      async ({ vault }) => ({
        txs: [],
        lie: async (request, response, url) => {
          if (url.pathname !== '/graphql') return false
          const after = Number((await readJson(request)).variables?.after ?? 0)
          const edges = Array.from({ length: 100 }, (_, i) =>
            edgeOf(
              { id: txId(), owner: wallet(), data: Buffer.alloc(7) },
              vault.vaultId,
              String(after + i + 1),
            ),
          )
          json(response, 200, { data: { transactions: { pageInfo: { hasNextPage: true }, edges } } })
          return true
        },
      }),
      { maxPages: 20 },
    )
    expect(run.report.stopped?.message).toContain(
      'still listing transactions tagged with this vault after 20 pages',
    )
    expect(run.gateway.graphqlCalls()).toBe(20)
  })

  it('endless pages, the same page again: a gateway that ignores the cursor is stopped, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) => {
          if (url.pathname !== '/graphql') return false
          const edges = txs.map((tx, i) => edgeOf(tx, vault.vaultId, String(i + 1)))
          json(response, 200, { data: { transactions: { pageInfo: { hasNextPage: true }, edges } } })
          return true
        },
      }
    })
    expect(run.report.stopped?.message).toContain('the same page of its search again')
  })

  it('endless body: transaction data that never ends is cut at the declared size, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) =>
          url.pathname === `/${txs[1]!.id}` ? endless(response, { head: txs[1]!.data }) : false,
      }
    })
    const cut = run.report.found[1]!.txId
    expect(run.text).toContain(
      `sent more bytes for ${cut} than the ${run.report.found[1]!.size} its transaction holds`,
    )
    expect(recovered(run.appeared)).toEqual(['letters', 'letters/will.txt'])
  })

  it("junk tagged with the vault's reference: random transactions are set aside by id, the files recovered", async () => {
    const junk: FakeTx[] = []
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      for (let i = 0; i < 3; i++)
        junk.push({
          id: txId(),
          owner: wallet(),
          data: randomBytes(txs[0]!.data.length),
          blockSeconds: 1_800_000_000,
        })
      return { txs: [...txs, ...junk] }
    })
    expect(run.report.foreign.map((f) => f.txId).sort()).toEqual(junk.map((j) => j.id).sort())
    expect(recovered(run.appeared)).toEqual(['letters', 'letters/will.txt', 'photos.txt'])
  })

  it("endless junk under the vault's label: its download ends at the header that shows another vault's blob, nothing kept, the files recovered", async () => {
    const junk = txId()
    let sent = 0
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        // Listed first, declaring 10 GB, served for ever: before the vault's own files.
        txs: [
          {
            id: junk,
            owner: wallet(),
            data: Buffer.alloc(0),
            size: encryptedLength(10e9),
            blockSeconds: 1_600_000_000,
          },
          ...txs,
        ],
        lie: (_q, response, url) =>
          url.pathname === `/${junk}`
            ? endless(response, {
                piece: () => {
                  sent += 64 * 1024
                  return randomBytes(64 * 1024)
                },
              })
            : false,
      }
    })
    expect(run.report.stopped).toBeUndefined()
    expect(run.report.foreign.map((f) => f.txId)).toEqual([junk])
    expect(run.report.results.every((r) => r.input !== `arweave:${junk}`)).toBe(true)
    expect(sent, 'bytes the junk transaction made the heir take').toBeLessThan(16 << 20)
    expect(recovered(run.appeared)).toEqual(['letters', 'letters/will.txt', 'photos.txt'])
  })

  it("junk begun by an earlier run: a download whose first bytes show another vault's blob is not continued, nor kept", async () => {
    const vault = newVault()
    const world = await makeWorld()
    const junk = txId()
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [
        { id: junk, owner: wallet(), data: randomBytes(4096), size: encryptedLength(10e9) },
        { id: txId(), owner: OPERATOR, data: await fileBlob(vault, 'will.txt', 'the will') },
      ],
      // A run that could have gone on taking its bytes would never end.
      lie: (_q, response, url) => (url.pathname === `/${junk}` ? endless(response) : false),
    })
    cleanup.push(world, gateway)
    const downloads = join(world.outDir, ARWEAVE_DOWNLOADS_FOLDER)
    await mkdir(downloads, { recursive: true })
    await writeFile(
      `${join(downloads, localDownloadName('arweave', vault.vaultId, junk))}.vault.part`,
      randomBytes(300_000),
    )
    const report = await recoverFromArweave({
      gateway: gateway.origin,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 2000,
    })
    expect(report.stopped).toBeUndefined()
    expect(report.foreign.map((f) => f.txId)).toEqual([junk])
    expect(gateway.requests.some((r) => r.url.includes(junk))).toBe(false)
    expect(await readFile(join(world.outDir, 'will.txt'), 'utf8')).toBe('the will')
    expect(await readdir(downloads).catch(() => [])).toEqual([])
  })

  it('a download finished in an earlier run through a lying gateway: reused only with the SHA-256 this gateway gives', async () => {
    // A format-2 vault (no manifest): gateway A serves the draft will's bytes, and their hash as the
    // tag, for the final will's transaction; the heir then tries another gateway, as advised.
    const vault = newVault()
    const world = await makeWorld()
    const v2 = async (text: string) =>
      Buffer.from(await encryptBlobV2(Buffer.from(text), { ...vault, path: 'will.txt' }))
    const draft = await v2('a draft will!!')
    const final = await v2('the final will')
    const honest: FakeTx[] = [
      { id: txId(), owner: OPERATOR, data: draft, blockSeconds: 1_600_000_000 },
      { id: txId(), owner: OPERATOR, data: final, blockSeconds: 1_700_000_000 },
    ]
    const finalId = honest[1]!.id
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
    const gatewayA = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [
        honest[0]!,
        { ...honest[1]!, sha256Hex: sha(draft) },
        // Served wrongly: the run is not settled, so its downloads are kept for the next one.
        { id: txId(), owner: OPERATOR, data: randomBytes(draft.length), sha256Hex: 'ab'.repeat(32) },
      ],
      lie: (request, response, url) =>
        url.pathname === `/${finalId}` ? serveBytes(request, response, draft) : false,
    })
    const gatewayB = await startFakeGateway({ vaultId: vault.vaultId, txs: honest })
    cleanup.push(world, gatewayA, gatewayB)
    const common = { vaultId: vault.vaultId, vaultKey: vault.vaultKey, outDir: world.outDir, timeoutMs: 2000 }
    const first = await recoverFromArweave({ ...common, gateway: gatewayA.origin })
    expect(first.results.some((r) => r.status === 'failed')).toBe(true)
    await rename(join(world.outDir, 'will.txt'), join(world.outDir, 'will-from-A.txt'))
    const second = await recoverFromArweave({ ...common, gateway: gatewayB.origin })
    expect(second.results.map((r) => r.status).sort()).toEqual(['recovered', 'superseded'])
    expect(await readFile(join(world.outDir, 'will.txt'), 'utf8')).toBe('the final will')
  })

  it("swapped data: a transaction served with another one's bytes fails its SHA-256, named", async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      const other = await fileBlob(vault, 'photos.txt', 'LIST OF PHOTO')
      return {
        txs,
        lie: (request, response, url) =>
          url.pathname === `/${txs[1]!.id}`
            ? serveBytes(
                request,
                response,
                Buffer.concat([other, Buffer.alloc(txs[1]!.data.length - other.length)]),
              )
            : false,
      }
    })
    expect(run.text).toMatch(/SHA-256/)
    expect(recovered(run.appeared)).toEqual(['letters', 'letters/will.txt'])
  })

  it('truncated body: data cut short is not recovered, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) =>
          url.pathname === `/${txs[0]!.id}` ? cutShort(response, txs[0]!.data, 30) : false,
      }
    })
    expect(run.text).toMatch(/cut off|wrong size/)
    expect(recovered(run.appeared)).not.toContain('letters/will.txt')
  })

  it('wrong sizes: a declared size larger than the data is refused, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      txs[0]!.size = txs[0]!.data.length + 4096
      return { txs }
    })
    expect(run.text).toMatch(new RegExp(`${run.report.found[0]!.txId}[^\\n]*(wrong size|size)`))
    expect(recovered(run.appeared)).toEqual(['photos.txt'])
  })

  it('wrong sizes: one transaction declaring a size no disk holds does not stop the others', async () => {
    // Anyone can post under the vault's reference: a size that is only declared must not block the
    // honest files, as a check of the disk before downloading would if it believed it.
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      txs[0]!.size = 4_000_000_000_000_000
      return { txs }
    })
    expect(run.report.stopped).toBeUndefined()
    expect(run.text).toMatch(new RegExp(`${run.report.found[0]!.txId}[^\\n]*(wrong size|size)`))
    expect(recovered(run.appeared)).toEqual(['photos.txt'])
  })

  it('redirect to file://: a transaction sent to a local file is not read from it, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) =>
          url.pathname === `/${txs[0]!.id}` ? redirect(response, 'file:///etc/passwd', 302) : false,
      }
    })
    // Followed redirects are how arweave.net serves data; one to a non-web address must be named.
    expect(run.report.stopped?.message).toMatch(/redirect|file:|HTTP\(S\) scheme/i)
    expect(recovered(run.appeared)).toEqual([])
  })

  it('redirect to another host serving other bytes: the bytes fail their SHA-256, named', async () => {
    const run = await arweaveRecovery(async ({ vault, elsewhere }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) =>
          url.pathname === `/${txs[0]!.id}`
            ? redirect(response, `${elsewhere.origin}/${txs[0]!.id}`, 302)
            : false,
      }
    })
    expect(run.text).toMatch(/SHA-256|redirect/)
    expect(recovered(run.appeared)).not.toContain('letters/will.txt')
  })

  it('oversized answer: a 40 MB GraphQL answer is refused, named', async () => {
    const run = await arweaveRecovery(async () => ({
      txs: [],
      lie: (_q, response, url) =>
        url.pathname === '/graphql' ? hugeJson(response, 40 * 1024 * 1024) : false,
    }))
    expect(run.report.stopped?.message).toMatch(/a page of more than \d+ MB/)
  })

  it('200 with errors inside, and a web page: the search is refused, named', async () => {
    for (const [body, type] of [
      [JSON.stringify({ errors: [{ message: 'query too complex' }] }), 'application/json'],
      ['<html>Access denied</html>', 'text/html'],
    ] as const) {
      const run = await arweaveRecovery(async () => ({
        txs: [],
        lie: (_q, response, url) => {
          if (url.pathname !== '/graphql') return false
          response.writeHead(200, { 'content-type': type })
          response.end(body)
          return true
        },
      }))
      expect(run.report.stopped?.message).toContain('did not answer the search')
    }
  })

  it('slow drip: a GraphQL answer that arrives a byte at a time stops in time', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      const page = {
        data: {
          transactions: {
            pageInfo: { hasNextPage: false },
            edges: txs.map((tx, i) => edgeOf(tx, vault.vaultId, String(i + 1))),
          },
        },
      }
      return {
        txs,
        lie: (_q, response, url) =>
          url.pathname === '/graphql' ? drip(response, JSON.stringify(page), 20) : false,
      }
    })
    expect(run.report.stopped?.message).toMatch(/search|reached|time/)
  })

  it('a stall: transaction data that starts and then never moves again ends the run in time, named', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs,
        lie: (_q, response, url) => {
          if (url.pathname !== `/${txs[0]!.id}`) return false
          response.writeHead(200, {
            'content-type': 'application/octet-stream',
            'content-length': txs[0]!.data.length,
          })
          response.write(txs[0]!.data.subarray(0, 10))
          return true
        },
      }
    })
    expect(run.report.stopped?.message).toMatch(/no data|stalled|in time|slow|stopped sending/i)
  })

  it('duplicate ids: one transaction listed on two pages is fetched and reported once', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return { txs: [txs[0]!, txs[1]!, txs[0]!] }
    })
    expect(run.report.found.map((f) => f.txId)).toHaveLength(2)
    expect(run.report.results.filter((r) => r.status === 'recovered')).toHaveLength(2)
  })

  it("replayed old blob: last year's will re-posted in a newer block does not replace the newer will", async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const now = Date.now()
      return {
        txs: [
          {
            id: txId(),
            owner: OPERATOR,
            data: await fileBlob(vault, 'will.txt', 'the final will', now - 86_400_000),
            blockSeconds: 1_700_000_000,
          },
          {
            id: txId(),
            owner: wallet(),
            data: await fileBlob(vault, 'will.txt', 'a draft will!', now - 365 * 86_400_000),
            blockSeconds: 1_800_000_000,
          },
        ],
      }
    })
    expect(await readFile(join(run.world.outDir, 'will.txt'), 'utf8')).toBe('the final will')
  })

  for (const tagged of [true, false]) {
    it(`a format-2 draft re-posted byte for byte in a later block (${tagged ? 'with' : 'without'} its SHA-256 tag) keeps the date of its first block`, async () => {
      const run = await arweaveRecovery(async ({ vault }) => {
        const v2 = async (text: string) =>
          Buffer.from(
            await encryptBlobV2(Buffer.from(text), {
              vaultKey: vault.vaultKey,
              vaultId: vault.vaultId,
              path: 'will.txt',
            }),
          )
        const draft = await v2('a draft will')
        return {
          txs: [
            { id: txId(), owner: OPERATOR, data: draft, blockSeconds: 1_600_000_000 },
            { id: txId(), owner: OPERATOR, data: await v2('the final will'), blockSeconds: 1_700_000_000 },
            // The draft's public bytes, posted again by anyone years later.
            {
              id: txId(),
              owner: wallet(),
              data: draft,
              blockSeconds: 1_900_000_000,
              ...(tagged ? {} : { sha256Hex: null }),
            },
          ],
        }
      })
      expect(await readFile(join(run.world.outDir, 'will.txt'), 'utf8')).toBe('the final will')
      expect(run.report.results.filter((r) => r.status === 'superseded')).toHaveLength(2)
    })
  }

  it('a withheld newest manifest: the newest manifest the gateway lists lacks a newer copy, which is reported', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const old = Date.now() - 3 * 86_400_000
      const newer = Date.now() - 86_400_000
      const files = [{ path: 'will.txt', text: 'a draft will', writtenAtMs: old }]
      return {
        txs: [
          {
            id: txId(),
            owner: OPERATOR,
            data: await fileBlob(vault, 'will.txt', 'a draft will', old),
            blockSeconds: 1_700_000_000,
          },
          {
            id: txId(),
            owner: OPERATOR,
            data: await manifestBlob(vault, 1, old, files),
            blockSeconds: 1_700_000_000,
          },
          {
            id: txId(),
            owner: OPERATOR,
            data: await fileBlob(vault, 'will.txt', 'the final will', newer),
            blockSeconds: 1_700_000_500,
          },
        ],
      }
    })
    expect(run.text).toMatch(/will\.txt: [^\n]*(newest list of files|manifest)/i)
    expect(await readFile(join(run.world.outDir, 'will.txt'), 'utf8')).toBe('a draft will')
  })

  it('a manifest file withheld by the gateway: a file the manifest lists but nobody serves is named missing', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const at = Date.now() - 86_400_000
      const files = [
        { path: 'will.txt', text: 'the final will', writtenAtMs: at },
        { path: 'letter.txt', text: 'dear all', writtenAtMs: at },
      ]
      return {
        txs: [
          {
            id: txId(),
            owner: OPERATOR,
            data: await fileBlob(vault, 'will.txt', 'the final will', at),
            blockSeconds: 1_700_000_000,
          },
          {
            id: txId(),
            owner: OPERATOR,
            data: await manifestBlob(vault, 1, at, files),
            blockSeconds: 1_700_000_000,
          },
        ],
      }
    })
    expect(run.text).toMatch(/letter\.txt[^\n]*missing|missing[^\n]*letter\.txt/i)
  })

  it("a different wallet owner: with --owner, a stranger's re-posted copy is neither fetched nor used", async () => {
    let stranger!: FakeTx
    const run = await arweaveRecovery(
      async ({ vault }) => {
        const txs = await honestTxs(vault)
        // A genuine old blob, re-posted by someone else's wallet in a newer block (the gateway ignores the owner filter).
        stranger = {
          id: txId(),
          owner: wallet(),
          data: await fileBlob(vault, 'letters/will.txt', 'a draft will!', Date.now() - 365 * 86_400_000),
          blockSeconds: 1_900_000_000,
        }
        return { txs: [...txs, stranger] }
      },
      { owner: OPERATOR },
    )
    expect(run.gateway.requests.some((r) => r.url.includes(stranger.id))).toBe(false)
    expect(await readFile(join(run.world.outDir, 'letters', 'will.txt'), 'utf8')).toBe('the final will')
    expect(run.report.owners.map((o) => o.address)).toEqual([OPERATOR])
  })

  it('several wallet owners without --owner: the report lists every wallet that tagged the vault', async () => {
    const other = wallet()
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return {
        txs: [
          ...txs,
          { id: txId(), owner: other, data: randomBytes(txs[0]!.data.length), blockSeconds: 1_900_000_000 },
        ],
      }
    })
    expect(run.report.owners).toEqual([
      { address: OPERATOR, count: 2 },
      { address: other, count: 1 },
    ])
  })

  it('a well-formed but foreign id: a transaction id that is not 43 base64url characters is refused', async () => {
    const run = await arweaveRecovery(async ({ vault }) => {
      const txs = await honestTxs(vault)
      return { txs: [...txs, { id: 'abc%2F..', owner: OPERATOR, data: txs[0]!.data }] }
    })
    expect(run.report.stopped?.message).toContain('"abc%2F.." where a transaction id must be')
    expect(recovered(run.appeared)).toEqual([])
  })
})
