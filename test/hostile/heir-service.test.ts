// An heir's recovery from a lying Vault Service (recoverFromService, what the app's Recovery screen
// and the command-line tool run). Every case: nothing is written outside the output folder, nothing
// that was there changes, the heir's access code goes to the service's address only (never along a
// redirect), and the report names what was wrong.
import { randomBytes } from 'node:crypto'
import { readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type HeirRecoveryReport, recoverFromService } from '../../src/recovery/heir-recovery'
import { MAX_LISTED_ASSETS } from '../../src/service-client/answer-checks'
import {
  assetId,
  assetOf,
  bundleBlob,
  type FakeAsset,
  type FakeServiceOptions,
  fileBlob,
  json,
  manifestBlob,
  newVault,
  serveBytes,
  startFakeService,
  vaultOf,
} from './fake-vault-service'
import {
  contained,
  expectNeverSent,
  makeWorld,
  type RecordingListener,
  startElsewhere,
  type World,
} from './hostile-world'
import { cutShort, drip, endless, hugeJson, redirect } from './lies'

const cleanup: (World | RecordingListener)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await ('remove' in item ? item.remove() : item.stop())
})

const DAY_MS = 86_400_000
type Vault = ReturnType<typeof newVault>

interface HeirCase {
  vault: Vault
  world: World
  elsewhere: RecordingListener
  service: RecordingListener
}

/** The honest files of a case's vault: a will and a photo list, each a format-3 blob named inside. */
async function honestAssets(vault: Vault): Promise<FakeAsset[]> {
  const day = new Date(Date.now() - DAY_MS).toISOString()
  return [
    {
      id: assetId(),
      filename: 'will.txt',
      blob: await fileBlob(vault, 'letters/will.txt', 'the final will'),
      createdAt: day,
    },
    {
      id: assetId(),
      filename: 'photos.txt',
      blob: await fileBlob(vault, 'photos.txt', 'list of photos'),
      createdAt: day,
    },
  ]
}

/** Sets up a lying service for the case, runs a recovery against it, and checks containment and the code's path. */
async function heirRecovery(
  build: (c: Omit<HeirCase, 'service'>) => Promise<Pick<FakeServiceOptions, 'assets' | 'lie' | 'vault'>>,
): Promise<HeirCase & { report: HeirRecoveryReport; text: string; appeared: string[] }> {
  const vault = newVault()
  const world = await makeWorld()
  const elsewhere = await startElsewhere()
  cleanup.push(world, elsewhere)
  const setup = await build({ vault, world, elsewhere })
  const service = await startFakeService({ key: vault.heirCode, vaultId: vault.vaultId, ...setup })
  cleanup.push(service)
  const { result: report, appeared } = await contained(world, () =>
    recoverFromService({
      serviceUrl: service.origin,
      accessToken: vault.heirCode,
      vaultId: vault.vaultId,
      vaultKey: vault.vaultKey,
      outDir: world.outDir,
      timeoutMs: 500,
      maxRetries: 0,
    }),
  )
  // The access code went to the service's address only, and nothing followed a redirect.
  expect(elsewhere.requests).toEqual([])
  expectNeverSent(vault.heirCode, elsewhere)
  for (const request of service.requests) expect(request.headers.host).toBe(new URL(service.origin).host)
  // A file decrypted while it downloaded is linked into place or removed, whatever the service did.
  expect(appeared.filter((p) => p.endsWith('.plain'))).toEqual([])
  const text = [
    report.stopped?.message ?? '',
    ...report.results.map((r) => `${r.status} ${r.name}: ${r.message}`),
  ].join('\n')
  if (process.env.HOSTILE_DEBUG) console.log(text)
  return { vault, world, elsewhere, service, report, text, appeared }
}

/** What the run left in the output folder, its downloads folder aside. */
const recoveredFiles = (appeared: string[]) =>
  appeared.filter((p) => !p.startsWith('.vault-downloads')).sort()

const isContent = (url: URL, id: string) => url.pathname.endsWith(`/asset/${id}/content`)
const isListing = (url: URL) => /\/api\/vault\/[^/]+\/asset$/.test(url.pathname)
const isVaultRead = (url: URL, vaultId: string) => url.pathname === `/api/vault/${vaultId}`

describe('heir recovery against a lying service', () => {
  it('traversal id: an asset "../../x" is refused before anything is written', async () => {
    const run = await heirRecovery(async ({ vault }) => ({
      assets: [
        {
          id: '../../x',
          filename: 'x',
          blob: await fileBlob(vault, 'x.txt', 'planted'),
          createdAt: new Date().toISOString(),
        },
      ],
    }))
    expect(run.report.stopped?.message).toContain('asset id "../../x" that is not an id')
    expect(run.appeared.filter((p) => !p.startsWith('.vault-downloads'))).toEqual([])
  })

  it("swapped blobs: B's address serves A's bytes; the manifest names B as missing", async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const at = Date.now() - DAY_MS
      const day = new Date(at).toISOString()
      const files = [
        { path: 'letters/will.txt', text: 'the final will', writtenAtMs: at },
        { path: 'letters/list.txt', text: 'list of photos', writtenAtMs: at },
      ]
      // Same lengths, so only what is sealed inside tells them apart.
      const will = {
        id: assetId(),
        filename: 'file-1.vault',
        blob: await fileBlob(vault, files[0]!.path, files[0]!.text, at),
        createdAt: day,
      }
      const list = {
        id: assetId(),
        filename: 'file-2.vault',
        blob: await fileBlob(vault, files[1]!.path, files[1]!.text, at),
        createdAt: day,
      }
      const manifest = {
        id: assetId(),
        filename: 'file-3.vault',
        blob: await manifestBlob(vault, 1, at, files),
        createdAt: day,
      }
      return {
        assets: [will, list, manifest],
        lie: (request, response, url) =>
          isContent(url, list.id) ? serveBytes(request, response, will.blob) : false,
      }
    })
    expect(run.appeared).not.toContain('letters/list.txt')
    expect(run.text).toMatch(/letters\/list\.txt[^\n]*missing|missing[^\n]*letters\/list\.txt/)
  })

  it('a withheld newest manifest: a copy newer than the newest manifest the service hands over is reported', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const old = Date.now() - 3 * DAY_MS
      const newer = Date.now() - DAY_MS
      const files = [{ path: 'will.txt', text: 'a draft will', writtenAtMs: old }]
      return {
        // Manifest 2 (written with the newer will) is withheld; manifest 1 and both wills are served.
        assets: [
          {
            id: assetId(),
            filename: 'file-1.vault',
            blob: await fileBlob(vault, 'will.txt', 'a draft will', old),
            createdAt: new Date(old).toISOString(),
          },
          {
            id: assetId(),
            filename: 'file-2.vault',
            blob: await manifestBlob(vault, 1, old, files),
            createdAt: new Date(old).toISOString(),
          },
          {
            id: assetId(),
            filename: 'file-3.vault',
            blob: await fileBlob(vault, 'will.txt', 'the final will', newer),
            createdAt: new Date(newer).toISOString(),
          },
        ],
      }
    })
    expect(run.text).toMatch(/will\.txt: [^\n]*(newest list of files|manifest)/i)
    expect(await readFile(join(run.world.outDir, 'will.txt'), 'utf8')).toBe('a draft will')
  })

  it("replayed old blob: last year's will listed as the newest upload does not replace the newer will", async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const now = Date.now()
      return {
        assets: [
          {
            id: assetId(),
            filename: 'will.txt',
            blob: await fileBlob(vault, 'will.txt', 'the final will', now - DAY_MS),
            createdAt: new Date(now - DAY_MS).toISOString(),
          },
          // Re-posted today: the service dates it newest, its sealed write time says a year ago.
          {
            id: assetId(),
            filename: 'will.txt',
            blob: await fileBlob(vault, 'will.txt', 'a draft will!', now - 365 * DAY_MS),
            createdAt: new Date(now).toISOString(),
          },
        ],
      }
    })
    expect(await readFile(join(run.world.outDir, 'will.txt'), 'utf8')).toBe('the final will')
    expect(run.text).toMatch(/older/i)
  })

  it('oversized answer: a 20 MB asset listing is cut off at the client limit, named', async () => {
    const run = await heirRecovery(async () => ({
      lie: (_q, response, url) => (isListing(url) ? hugeJson(response, 20 * 1024 * 1024) : false),
    }))
    expect(run.report.stopped?.message).toContain('larger than 16777216 bytes')
  })

  it('endless pages: a listing that always has a next page of new files stops at the cap, named', async () => {
    const run = await heirRecovery(async () => ({
      lie: (_q, response, url) => {
        if (!isListing(url)) return false
        const page = Array.from({ length: 100 }, () =>
          assetOf({
            id: assetId(),
            filename: 'f',
            blob: Buffer.alloc(0),
            sizeBytes: 1000,
            createdAt: new Date().toISOString(),
          }),
        )
        json(response, 200, {
          data: page,
          meta: { total: 1e12, limit: 100, offset: Number(url.searchParams.get('offset')) },
        })
        return true
      },
    }))
    expect(run.report.stopped?.message).toContain(`goes on past ${MAX_LISTED_ASSETS} files`)
    expect(run.service.requests.length).toBeLessThanOrEqual(MAX_LISTED_ASSETS / 100 + 5)
  })

  it('endless pages, the same page again: a listing that repeats itself is refused as an id listed twice', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const assets = await honestAssets(vault)
      return {
        assets,
        lie: (_q, response, url) => {
          if (!isListing(url)) return false
          json(response, 200, { data: assets.map(assetOf), meta: { total: 1e12 } })
          return true
        },
      }
    })
    expect(run.report.stopped?.message).toMatch(/asset ast_\S+ listed twice/)
  })

  it('duplicate ids: two listed files with one id are refused', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const [will, photos] = await honestAssets(vault)
      return { assets: [will!, { ...photos!, id: will!.id }] }
    })
    expect(run.report.stopped?.message).toContain(`asset ${run.report.results.length === 0 ? '' : ''}`)
    expect(run.report.stopped?.message).toMatch(/listed twice/)
  })

  it('endless body: a file that never ends is cut at its listed size and named; the others are recovered', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const [will, photos] = await honestAssets(vault)
      return {
        assets: [will!, photos!],
        lie: (_q, response, url) =>
          isContent(url, photos!.id) ? endless(response, { head: photos!.blob }) : false,
      }
    })
    const photos = run.report.results.find((r) => r.name === 'photos.txt')!
    expect(photos.status).toBe('failed')
    expect(photos.message).toMatch(/sent more than the \d+ bytes it listed/)
    expect(run.report.results.find((r) => r.name === 'letters/will.txt')?.status).toBe('recovered')
  })

  it('wrong sizes: a listed size smaller than the body is refused as more bytes than listed', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const [will] = await honestAssets(vault)
      return { assets: [{ ...will!, sizeBytes: will!.blob.length - 16 }] }
    })
    expect(run.text).toMatch(/sent more than the \d+ bytes it listed/)
  })

  it('wrong sizes: a listed size larger than the body stops as a cut-off download, named', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const [will] = await honestAssets(vault)
      return { assets: [{ ...will!, sizeBytes: will!.blob.length + 4096 }] }
    })
    expect(run.report.stopped?.message).toMatch(/cut off/)
  })

  it('wrong sizes: a listed size no disk holds stops the run before any download, the figure in plain sight', async () => {
    const claimed = 4_000_000_000_000_000 // 4 EB: more than any disk has free
    const run = await heirRecovery(async ({ vault }) => {
      const [will, photos] = await honestAssets(vault)
      return { assets: [will!, { ...photos!, sizeBytes: claimed }] }
    })
    expect(run.report.stopped?.code).toBe('OUTPUT_UNWRITABLE')
    // The absurd size is shown, so the heir can tell a lying listing from a small disk.
    expect(run.report.stopped?.message).toContain('need 4000000 GB')
    expect(run.service.requests.filter((r) => r.url.endsWith('/content'))).toEqual([])
    expect(recoveredFiles(run.appeared)).toEqual([])
  })

  it('truncated body: a download cut short stops the run and names it; nothing is written as recovered', async () => {
    const run = await heirRecovery(async ({ vault }) => {
      const [will] = await honestAssets(vault)
      return {
        assets: [will!],
        lie: (_q, response, url) => (isContent(url, will!.id) ? cutShort(response, will!.blob, 40) : false),
      }
    })
    expect(run.report.stopped?.message).toMatch(/cut off/)
    expect(run.appeared.filter((p) => !p.startsWith('.vault-downloads'))).toEqual([])
  })

  it('wrong vault id: the vault read answered with another vault stops the run, naming both', async () => {
    const other = newVault().vaultId
    const run = await heirRecovery(async ({ vault }) => ({
      assets: await honestAssets(vault),
      lie: (_q, response, url) =>
        isVaultRead(url, vault.vaultId)
          ? json(response, 200, { data: vaultOf({ key: '', vaultId: other }) })
          : false,
    }))
    expect(run.report.stopped?.message).toContain(other)
    expect(run.appeared).toEqual([])
  })

  it('a "released" state that is not: an heir code that reads an active vault stops the run, named', async () => {
    const run = await heirRecovery(async ({ vault }) => ({
      assets: await honestAssets(vault),
      vault: { state: 'active', releasedAt: null },
    }))
    expect(run.report.stopped?.message).toMatch(/not (been )?released/)
    expect(run.appeared).toEqual([])
  })

  it('redirect to another host: a download sent elsewhere is not followed, the code never leaves', async () => {
    const run = await heirRecovery(async ({ vault, elsewhere }) => {
      const assets = await honestAssets(vault)
      return {
        assets,
        lie: (_q, response, url) =>
          isContent(url, assets[1]!.id)
            ? redirect(response, `${elsewhere.origin}/steal${url.pathname}`, 302)
            : false,
      }
    })
    expect(run.report.stopped?.message).toContain(run.elsewhere.origin)
  })

  it('redirect to file://: the vault read sent to a local file is refused, named', async () => {
    const run = await heirRecovery(async ({ vault }) => ({
      assets: await honestAssets(vault),
      lie: (_q, response, url) =>
        isVaultRead(url, vault.vaultId) ? redirect(response, 'file:///etc/shadow', 301) : false,
    }))
    expect(run.report.stopped?.message).toContain('file://')
  })

  it('slow drip: a listing that arrives a byte at a time stops in time, named as slow', async () => {
    const started = Date.now()
    const run = await heirRecovery(async ({ vault }) => {
      const assets = await honestAssets(vault)
      return {
        assets,
        lie: (_q, response, url) =>
          isListing(url)
            ? drip(response, JSON.stringify({ data: assets.map(assetOf), meta: { total: 2 } }), 20)
            : false,
      }
    })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(run.report.stopped?.message).toMatch(/still arriving|in time/)
  })

  it('slow drip: a download that keeps the socket alive with a byte at a time is stopped, named as too slow', async () => {
    const started = Date.now()
    const run = await heirRecovery(async ({ vault }) => {
      const big = {
        id: assetId(),
        filename: 'scan',
        blob: await fileBlob(vault, 'scan.bin', randomBytes(64 * 1024)),
        createdAt: new Date().toISOString(),
      }
      return {
        assets: [big],
        lie: (_q, response, url) =>
          isContent(url, big.id)
            ? endless(response, {
                piece: () => big.blob.subarray(0, 1),
                everyMs: 50,
                safetyBytes: big.blob.length,
              })
            : false,
      }
    })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(run.report.stopped?.message).toMatch(/slow|too little|in time/)
  })

  it('200 with an error body, and a web page with 200: refused as answers that are not understood', async () => {
    for (const [body, type] of [
      [JSON.stringify({ error: { code: 'FORBIDDEN', message: 'go away' } }), 'application/json'],
      ['<html><body>Sign in to the Wi-Fi</body></html>', 'text/html'],
    ] as const) {
      const run = await heirRecovery(async ({ vault }) => ({
        assets: await honestAssets(vault),
        lie: (_q, response, url) => {
          if (!isListing(url)) return false
          response.writeHead(200, { 'content-type': type })
          response.end(body)
          return true
        },
      }))
      expect(run.report.stopped?.message).toMatch(/does not understand|not understood|wrong answer/)
    }
  })

  it("junk and a stranger's blob: random bytes and a blob of another vault are refused, each by its asset; the rest recovered", async () => {
    const junk = assetId()
    const other = assetId()
    const run = await heirRecovery(async ({ vault }) => {
      const assets = await honestAssets(vault)
      const stranger = { ...newVault(), vaultKey: vault.vaultKey }
      const now = new Date().toISOString()
      return {
        assets: [
          ...assets,
          { id: junk, filename: 'junk.bin', blob: randomBytes(assets[0]!.blob.length), createdAt: now },
          {
            id: other,
            filename: 'other.txt',
            blob: await fileBlob(stranger, 'other.txt', 'not yours'),
            createdAt: now,
          },
        ],
      }
    })
    const byAsset = (id: string) => run.report.results.find((r) => r.assetId === id)
    expect(byAsset(junk)?.status).toBe('failed')
    expect(byAsset(junk)?.message).toMatch(/changed or damaged/)
    // Named as the service listed it (display only), never by its local download name.
    expect(byAsset(junk)?.name).toBe('junk.bin')
    expect(byAsset(other)?.status).toBe('failed')
    expect(byAsset(other)?.name).toBe('other.txt')
    expect(run.report.results.find((r) => r.name === 'letters/will.txt')?.status).toBe('recovered')
    expect(recoveredFiles(run.appeared)).toEqual(['letters', 'letters/will.txt', 'photos.txt'])
  })

  it('names never from the source: a listed file name "../../../../evil.txt" lands under the name sealed in the blob', async () => {
    const run = await heirRecovery(async ({ vault }) => ({
      assets: [
        {
          id: assetId(),
          filename: '../../../../evil.txt',
          blob: await fileBlob(vault, 'letters/will.txt', 'the final will'),
          createdAt: new Date().toISOString(),
          metadata: { relativePath: '/etc/cron.d/evil' },
        },
        {
          id: assetId(),
          filename: 'bundle',
          blob: await bundleBlob(vault, Date.now(), { 'a.txt': 'a', 'b/c.txt': 'c' }),
          createdAt: new Date().toISOString(),
        },
      ],
    }))
    expect(run.appeared.filter((p) => !p.startsWith('.vault-downloads')).sort()).toEqual([
      'a.txt',
      'b',
      'b/c.txt',
      'letters',
      'letters/will.txt',
    ])
  })

  it('a name aimed at the heir\'s own files: a blob sealed as "existing.txt" or through a link in the folder changes nothing', async () => {
    const run = await heirRecovery(async ({ vault, world }) => {
      // The heir's folder already holds a link to a folder outside it (made by the heir, or an earlier tool).
      await symlink(join(world.root, 'home'), join(world.outDir, 'linked'))
      const now = new Date().toISOString()
      return {
        assets: [
          {
            id: assetId(),
            filename: 'a',
            blob: await fileBlob(vault, 'existing.txt', 'overwritten!'),
            createdAt: now,
          },
          {
            id: assetId(),
            filename: 'b',
            blob: await fileBlob(vault, 'linked/sentinel.txt', 'overwritten!'),
            createdAt: now,
          },
          {
            id: assetId(),
            filename: 'c',
            blob: await fileBlob(vault, 'linked/planted.txt', 'planted'),
            createdAt: now,
          },
        ],
      }
    })
    expect(await readFile(run.world.existing, 'utf8')).toBe('already in the output folder before the run\n')
    expect(run.report.results.filter((r) => r.status === 'recovered')).toEqual([])
    expect(run.text).toMatch(/existing\.txt/)
    expect(run.text).toMatch(/linked/)
  })
})
