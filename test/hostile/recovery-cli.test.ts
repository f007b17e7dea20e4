// The heir's command-line tool (src/recovery/cli.ts, as `npm run recover` runs it) against a lying
// service and a lying gateway: it exits non-zero, its output names the lie and never prints the
// access code, nothing lands outside the output folder, and the code goes to the service only.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { encodeOwnerKitWords } from '../../src/vault-format'
import { runOnTerminal } from '../support/on-terminal'
import { startFakeGateway, txId, wallet } from './fake-arweave-gateway'
import { assetId, fileBlob, manifestBlob, newVault, startFakeService } from './fake-vault-service'
import {
  contained,
  expectNeverSent,
  makeWorld,
  type RecordingListener,
  startElsewhere,
  type World,
} from './hostile-world'
import { redirect } from './lies'

const run = promisify(execFile)
const CLI = ['--import', 'tsx', 'src/recovery/cli.ts']

const cleanup: (World | RecordingListener)[] = []
afterEach(async () => {
  for (const item of cleanup.splice(0)) await ('remove' in item ? item.remove() : item.stop())
})

/** Runs the tool; resolves with its exit status and everything it printed. */
async function recover(args: string[]): Promise<{ status: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, ...args], { timeout: 30_000 })
    return { status: 0, output: stdout + stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { status: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

/** The tool from `service` with the owner's kit, into the world's output folder. */
function fromService(
  vault: ReturnType<typeof newVault>,
  service: { origin: string },
  world: World,
): string[] {
  return [
    '--owner-kit',
    encodeOwnerKitWords(vault),
    '--service',
    service.origin,
    '--token',
    vault.heirCode,
    '--out',
    world.outDir,
  ]
}

describe('the recovery tool against lying sources', () => {
  it('a service listing asset "../../x" and redirecting a download elsewhere: exit 1, both named, the code never leaves', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const elsewhere = await startElsewhere()
    const now = new Date().toISOString()
    const will = {
      id: assetId(),
      filename: 'w',
      blob: await fileBlob(vault, 'will.txt', 'the will'),
      createdAt: now,
    }
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      assets: [will],
      lie: (_q, response, url) =>
        url.pathname.endsWith(`/asset/${will.id}/content`)
          ? redirect(response, `${elsewhere.origin}/x`, 302)
          : false,
    })
    cleanup.push(world, elsewhere, service)
    const args = fromService(vault, service, world)
    const { result } = await contained(world, async () => {
      const redirected = await recover(args)
      service.options.assets = [{ ...will, id: '../../x' }]
      return { redirected, traversal: await recover(args) }
    })
    expect(result.redirected.status).toBe(1)
    expect(result.redirected.output).toContain(elsewhere.origin)
    expect(result.traversal.status).toBe(1)
    expect(result.traversal.output).toContain('asset id "../../x" that is not an id')
    for (const { output } of [result.redirected, result.traversal])
      expect(output).not.toContain(vault.heirCode)
    expect(elsewhere.requests).toEqual([])
    expectNeverSent(vault.heirCode, elsewhere)
  })

  it("a service naming a file with a direction override: the progress line on the heir's terminal shows the marker, not the override", async () => {
    const vault = newVault()
    const world = await makeWorld()
    const disguised = {
      id: assetId(),
      filename: 'photo\u202egpj.exe',
      blob: await fileBlob(vault, 'will.txt', 'the will'),
      createdAt: new Date().toISOString(),
    }
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      assets: [disguised],
    })
    cleanup.push(world, service)
    const terminal = await runOnTerminal([process.execPath, ...CLI, ...fromService(vault, service, world)])
    expect(terminal).toContain('downloading photo[U+202E]gpj.exe')
    expect(terminal).not.toContain('\u202e')
    expect(terminal).toContain('will.txt')
  })

  it('a gateway whose vault label several wallets used: the tool names each wallet; --owner keeps one', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const operator = wallet()
    const stranger = wallet()
    const will = await fileBlob(vault, 'will.txt', 'the will')
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [
        { id: txId(), owner: operator, data: will },
        { id: txId(), owner: stranger, data: randomBytes(will.length) },
      ],
    })
    cleanup.push(world, gateway)
    const args = [
      '--owner-kit',
      encodeOwnerKitWords(vault),
      '--from-arweave',
      gateway.origin,
      '--out',
      world.outDir,
    ]
    const { result } = await contained(world, async () => ({
      all: await recover(args),
      one: await recover([...args, '--owner', operator]),
    }))
    expect(result.all.output).toContain(operator)
    expect(result.all.output).toContain(stranger)
    expect(result.one.output).not.toContain(stranger)
  })

  it('a service that hands over no file of a released vault: exit 1, said; never "the vault holds no files"', async () => {
    const vault = newVault()
    const world = await makeWorld()
    // The vault says it holds 12 files; its listing is empty (withheld, or lost).
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      assets: [],
      vault: { assetCount: 12 },
    })
    cleanup.push(world, service)
    const result = await recover(fromService(vault, service, world))
    expect(result.status, result.output).toBe(1)
    expect(result.output).toContain("No list of the vault's files (manifest) was found")
    expect(result.output).toContain(`handed over no file of vault ${vault.vaultId}`)
    expect(result.output).not.toContain('holds no files')
  })

  it('a gateway that lists only a stranger\'s junk under the vault\'s label: exit 1, said; never "All 0 file(s) recovered"', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const length = (await fileBlob(vault, 'will.txt', 'the will')).length
    const junk = txId()
    const gateway = await startFakeGateway({
      vaultId: vault.vaultId,
      txs: [{ id: junk, owner: wallet(), data: randomBytes(length) }],
    })
    cleanup.push(world, gateway)
    const result = await recover([
      '--owner-kit',
      encodeOwnerKitWords(vault),
      '--from-arweave',
      gateway.origin,
      '--out',
      world.outDir,
    ])
    expect(result.status, result.output).toBe(1)
    expect(result.output).toContain(`left out: ${junk}`)
    expect(result.output).toContain("No list of the vault's files (manifest) was found")
    expect(result.output).toContain('No file was recovered: none of the 1 transaction(s)')
    expect(result.output).not.toContain('All 0 file(s)')
  })

  it('a vault whose own sealed list of files names none: exit 0, and the list said', async () => {
    const vault = newVault()
    const world = await makeWorld()
    const service = await startFakeService({
      key: vault.heirCode,
      vaultId: vault.vaultId,
      assets: [
        {
          id: assetId(),
          filename: 'list',
          blob: await manifestBlob(vault, 7, Date.now(), []),
          createdAt: new Date().toISOString(),
        },
      ],
    })
    cleanup.push(world, service)
    const result = await recover(fromService(vault, service, world))
    expect(result.status, result.output).toBe(0)
    expect(result.output).toContain("Recovered by the vault's newest list of files: number 7")
    expect(result.output).toContain('names no file: the vault holds no files')
  })
})
