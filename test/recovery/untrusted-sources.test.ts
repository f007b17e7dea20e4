// Recovery trusts nothing it downloads (issue 26, point 4): ids from a service or a gateway never become
// local names, every write stays below the output folder without following a link, long names fit,
// names that collide on Windows or a Mac are both kept, and a gateway cannot page or send for ever.
// The fakes and the world (a sentinel beside the output folder, snapshots before and after) are the
// hostile-source suite's.
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recoverFromArweave } from '../../src/recovery/arweave-recovery'
import { DOWNLOADS_FOLDER, recoverFromService } from '../../src/recovery/heir-recovery'
import { numberedName, windowsSafeSegment } from '../../src/recovery/portable-names'
import { recoverFiles } from '../../src/recovery/recover-files'
import { collectBytes, encryptBundleStream, encryptStream, generateVaultKey } from '../../src/vault-format'
import { type FakeTx, startFakeGateway, txId, wallet } from '../hostile/fake-arweave-gateway'
import { startFakeService } from '../hostile/fake-vault-service'
import { contained, makeWorld, type World } from '../hostile/hostile-world'

const vaultId = '7b3c1d2e-4f50-4a6b-8c7d-9e0f1a2b3c4d'
const vaultKey = generateVaultKey()
const token = `hk_${randomBytes(32).toString('base64url')}`

function sealed(path: string, content: string | Buffer): Promise<Buffer> {
  const bytes = Buffer.from(content)
  return collectBytes(
    encryptStream([bytes], { vaultKey, vaultId, identity: { path, size: bytes.length } }),
  ).then(Buffer.from)
}

function bundled(files: Record<string, string>): Promise<Buffer> {
  const entries = Object.entries(files).map(([path, text]) => {
    const bytes = Buffer.from(text)
    return { identity: { path, size: bytes.length }, content: () => [bytes] }
  })
  return collectBytes(encryptBundleStream(entries, { vaultKey, vaultId, createdAtMs: Date.now() })).then(
    Buffer.from,
  )
}

let world: World
beforeEach(async () => {
  world = await makeWorld()
})
afterEach(async () => {
  await world.remove()
})

describe('ids from a source never become local names', () => {
  it('an asset id "../../x" from the service writes nothing outside the output folder', async () => {
    const blob = await sealed('letter.txt', 'dear heir')
    const service = await startFakeService({
      key: token,
      vaultId,
      assets: [
        { id: '../../x', filename: 'x', blob, createdAt: new Date().toISOString() },
        { id: 'ast_good000000000000000', filename: 'letter.txt', blob, createdAt: new Date().toISOString() },
      ],
    })
    try {
      const { result, appeared } = await contained(world, () =>
        recoverFromService({
          serviceUrl: service.origin,
          accessToken: token,
          vaultId,
          vaultKey,
          outDir: world.outDir,
        }),
      )
      // The listing is refused whole (the client's answer checks), in words that name the lie.
      expect(result.stopped?.code).toBe('SERVICE_ERROR')
      expect(result.stopped?.message).toMatch(/asset id "\.\.\/\.\.\/x" that is not an id/)
      expect(appeared).toEqual([])
      // Nothing was even asked for under that id.
      expect(service.requests.some((r) => r.url.includes('..'))).toBe(false)
    } finally {
      await service.stop()
    }
  })

  it('downloads in progress are named here, never after the asset id', async () => {
    const blob = await sealed('letter.txt', 'dear heir')
    const id = 'ast_Letter-From-Service'
    const service = await startFakeService({
      key: token,
      vaultId,
      assets: [{ id, filename: 'letter.txt', blob, createdAt: new Date().toISOString() }],
      // The connection drops half-way, so the download stays in progress.
      lie: (request, response, url) => {
        if (!url.pathname.endsWith('/content')) return false
        response.writeHead(200, { 'content-length': blob.length })
        response.write(blob.subarray(0, 100))
        setTimeout(() => request.socket.destroy(), 20)
        return true
      },
    })
    try {
      const { result, appeared } = await contained(world, () =>
        recoverFromService({
          serviceUrl: service.origin,
          accessToken: token,
          vaultId,
          vaultKey,
          outDir: world.outDir,
          maxRetries: 0,
        }),
      )
      expect(result.stopped?.code).toBe('SERVICE_UNREACHABLE')
      const downloads = appeared.filter((p) => p.startsWith(`${DOWNLOADS_FOLDER}/`))
      expect(downloads).toHaveLength(1)
      expect(downloads[0]).toMatch(/^\.vault-downloads\/[0-9a-f]{24}\.part$/)
      expect(downloads[0]).not.toContain(id)
    } finally {
      await service.stop()
    }
  })

  it('a transaction id "../../x" from the gateway stops the run, naming the gateway, and writes nothing', async () => {
    const blob = await sealed('letter.txt', 'dear heir')
    const gateway = await startFakeGateway({
      vaultId,
      txs: [{ id: '../../x', owner: wallet(), data: blob }],
      // Serves the data whatever the path (a URL normalizes "/../../x" to "/x").
      lie: (request, response, url) => {
        if (url.pathname === '/graphql') return false
        response.writeHead(200, { 'content-length': blob.length })
        response.end(request.method === 'GET' ? blob : undefined)
        return true
      },
    })
    try {
      const { result, appeared } = await contained(world, () =>
        recoverFromArweave({ gateway: gateway.origin, vaultId, vaultKey, outDir: world.outDir }),
      )
      expect(result.stopped?.code).toBe('GATEWAY_UNTRUSTWORTHY')
      expect(result.stopped?.message).toContain(gateway.origin)
      expect(result.stopped?.message).toMatch(/"\.\.\/\.\.\/x" where a transaction id must be/)
      expect(appeared).toEqual([])
    } finally {
      await gateway.stop()
    }
  })

  it('accepts only 43 base64url characters as a transaction id', async () => {
    for (const bad of [`${txId()}A`, txId().slice(1), `${txId().slice(0, 42)}/`, `${txId().slice(0, 42)}.`]) {
      const blob = await sealed('a.txt', 'a')
      const gateway = await startFakeGateway({ vaultId, txs: [{ id: bad, owner: wallet(), data: blob }] })
      try {
        const report = await recoverFromArweave({
          gateway: gateway.origin,
          vaultId,
          vaultKey,
          outDir: world.outDir,
        })
        expect(report.stopped?.code, bad).toBe('GATEWAY_UNTRUSTWORTHY')
      } finally {
        await gateway.stop()
      }
    }
  })
})

describe('writes below the output folder, never through a link', () => {
  it('a link in the output folder to a folder outside is refused, not followed', async () => {
    const outside = join(world.root, 'home', 'elsewhere')
    await mkdir(outside)
    await symlink(outside, join(world.outDir, 'docs'))
    const input = join(world.root, 'docs.vault')
    await writeFile(input, await sealed('docs/will.txt', 'the will'))
    const { result, appeared } = await contained(world, () =>
      recoverFiles({ vaultKey, vaultId, inputs: [input], outDir: world.outDir }),
    )
    expect(result).toHaveLength(1)
    expect(result[0]).toMatchObject({ status: 'failed', reason: 'link' })
    expect(result[0]!.message).toMatch(/"docs" in the output folder is a link .* never writes through a link/)
    expect(appeared).toEqual([])
  })

  it('a link at the file name itself is left alone (a dangling one too), never written through', async () => {
    const target = join(world.root, 'home', 'target.txt')
    await symlink(target, join(world.outDir, 'will.txt'))
    const input = join(world.root, 'will.vault')
    await writeFile(input, await sealed('will.txt', 'the will'))
    const { result, appeared } = await contained(world, () =>
      recoverFiles({ vaultKey, vaultId, inputs: [input], outDir: world.outDir }),
    )
    expect(result[0]).toMatchObject({ reason: 'link' })
    expect(appeared).toEqual([])
  })

  it('recovers a name of 255 bytes (its temp name is short)', async () => {
    const long = `${'é'.repeat(124)}.txt` // 248 + 4 = 252 bytes
    const longest = `${'a'.repeat(251)}.txt` // 255 bytes
    const inputs = [join(world.root, 'one.vault'), join(world.root, 'two.vault')]
    await writeFile(inputs[0]!, await sealed(`folder/${long}`, 'long'))
    await writeFile(inputs[1]!, await sealed(longest, 'longest'))
    const results = await recoverFiles({ vaultKey, vaultId, inputs, outDir: world.outDir })
    expect(results.map((r) => r.status)).toEqual(['recovered', 'recovered'])
    expect(await readFile(join(world.outDir, 'folder', long), 'utf8')).toBe('long')
    expect(await readFile(join(world.outDir, longest), 'utf8')).toBe('longest')
  })
})

describe('names that one disk would take for the same are both kept', () => {
  it('renames the later of a:b / a_b, notes. / notes and Photo.JPG / photo.jpg to "name (2)" and says so', async () => {
    const input = join(world.root, 'b.vault')
    await writeFile(
      input,
      await bundled({ 'a:b': '1', a_b: '2', 'notes.': '3', notes: '4', 'Photo.JPG': '5', 'photo.jpg': '6' }),
    )
    const results = await recoverFiles({ vaultKey, vaultId, inputs: [input], outDir: world.outDir })
    expect(results.map((r) => r.status)).toEqual(Array(6).fill('recovered'))
    const read = (name: string) => readFile(join(world.outDir, name), 'utf8')
    expect(await read('a:b')).toBe('1')
    expect(await read('a_b (2)')).toBe('2')
    expect(await read('notes.')).toBe('3')
    expect(await read('notes (2)')).toBe('4')
    expect(await read('Photo.JPG')).toBe('5')
    expect(await read('photo (2).jpg')).toBe('6')
    const renamed = results.find((r) => r.entry === 'photo.jpg')!
    expect(renamed.message).toMatch(/Saved as "photo \(2\)\.jpg": another file of the vault, "Photo\.JPG"/)
    // A second run finds the same names and keeps them.
    const again = await recoverFiles({ vaultKey, vaultId, inputs: [input], outDir: world.outDir })
    expect(again.map((r) => r.status)).toEqual(Array(6).fill('kept'))
  })

  it('keeps "name (2)" within 255 bytes', () => {
    const name = `${'b'.repeat(251)}.txt`
    const numbered = numberedName(name, 2)
    expect(Buffer.byteLength(numbered)).toBe(255)
    expect(numbered.endsWith(' (2).txt')).toBe(true)
  })

  it('treats every Windows device name as reserved, CONIN$, CONOUT$ and the superscript ports too', () => {
    for (const name of ['CON', 'nul.txt', 'CONIN$', 'conout$.log', 'COM¹', 'LPT³.txt', 'com9', 'AUX .txt']) {
      expect(windowsSafeSegment(name), name).toBe(`_${name}`)
    }
    expect(windowsSafeSegment('CONINX')).toBe('CONINX')
    expect(windowsSafeSegment('console.txt')).toBe('console.txt')
  })
})

describe('a gateway cannot page or send for ever', () => {
  it('stops after the page cap with an error naming the gateway', async () => {
    let page = 0
    const gateway = await startFakeGateway({
      vaultId,
      txs: [],
      lie: (_request, response, url) => {
        if (url.pathname !== '/graphql') return false
        page++
        const body = JSON.stringify({
          data: {
            transactions: {
              pageInfo: { hasNextPage: true },
              edges: [{ cursor: `c${page}`, node: junkNode() }],
            },
          },
        })
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(body)
        return true
      },
    })
    try {
      const report = await recoverFromArweave({
        gateway: gateway.origin,
        vaultId,
        vaultKey,
        outDir: world.outDir,
        maxPages: 5,
      })
      expect(report.stopped?.code).toBe('TOO_MANY_PAGES')
      expect(report.stopped?.message).toContain(gateway.origin)
      expect(report.stopped?.message).toContain('--owner')
      expect(page).toBe(5)
    } finally {
      await gateway.stop()
    }
  })

  it('cuts a download at the declared size: a longer body is refused and nothing of it kept', async () => {
    const blob = await sealed('will.txt', 'the will')
    const tx: FakeTx = { id: txId(), owner: wallet(), data: blob, sha256Hex: null }
    const gateway = await startFakeGateway({
      vaultId,
      txs: [tx],
      lie: (_request, response, url) => {
        if (url.pathname !== `/${tx.id}`) return false
        // The declared bytes, then a megabyte more.
        response.writeHead(200, { 'content-type': 'application/octet-stream' })
        response.end(Buffer.concat([blob, randomBytes(1 << 20)]))
        return true
      },
    })
    try {
      const { result, appeared } = await contained(world, () =>
        recoverFromArweave({ gateway: gateway.origin, vaultId, vaultKey, outDir: world.outDir }),
      )
      expect(result.results).toHaveLength(1)
      expect(result.results[0]!.status).toBe('failed')
      expect(result.results[0]!.message).toMatch(/sent more bytes for .* than the \d+ its transaction holds/)
      expect(appeared.filter((p) => !p.endsWith('/') && !p.startsWith('.vault-arweave-downloads'))).toEqual(
        [],
      )
      expect(appeared).not.toContain('will.txt')
    } finally {
      await gateway.stop()
    }
  })

  it('--owner accepts one wallet only; several wallets are reported', async () => {
    const operator = wallet()
    const stranger = wallet()
    const mine = await sealed('will.txt', 'the will')
    const theirs = await sealed('will.txt', 'a forged will')
    const gateway = await startFakeGateway({
      vaultId,
      txs: [
        { id: txId(), owner: operator, data: mine },
        { id: txId(), owner: stranger, data: theirs },
      ],
    })
    try {
      const all = await recoverFromArweave({
        gateway: gateway.origin,
        vaultId,
        vaultKey,
        outDir: join(world.outDir, 'all'),
      })
      expect(all.owners.map((o) => o.address).sort()).toEqual([operator, stranger].sort())
      const one = await recoverFromArweave({
        gateway: gateway.origin,
        vaultId,
        vaultKey,
        outDir: join(world.outDir, 'one'),
        owner: operator,
      })
      expect(one.found.map((b) => b.owner)).toEqual([operator])
      expect(one.owners).toEqual([{ address: operator, count: 1 }])
      expect(await readFile(join(world.outDir, 'one', 'will.txt'), 'utf8')).toBe('the will')
      const bad = await recoverFromArweave({
        gateway: gateway.origin,
        vaultId,
        vaultKey,
        outDir: world.outDir,
        owner: 'me',
      })
      expect(bad.stopped?.code).toBe('INVALID_OWNER')
    } finally {
      await gateway.stop()
    }
  })
})

function junkNode() {
  return {
    id: txId(),
    owner: { address: wallet() },
    data: { size: '10' },
    block: null,
    tags: [],
  }
}
