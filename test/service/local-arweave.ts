// A local Arweave network for the tests (arlocal) on a free loopback port, in a temp folder, with an
// operator wallet that holds 1000 AR: far more than the tests' uploads cost.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ArLocalModule from 'arlocal'
import Arweave from 'arweave'

// arlocal is CommonJS with `exports.default`; Node's ESM import hands over the exports object.
const ArLocal = ((ArLocalModule as unknown as { default?: typeof ArLocalModule }).default ??
  ArLocalModule) as typeof ArLocalModule

export interface LocalArweave {
  gateway: string
  arweave: Arweave
  /** The folder everything lives in (arlocal's database, the wallet); removed by stop(). */
  dir: string
  /** The operator's wallet (JWK file, 0600) and its address, funded. */
  walletFile: string
  address: string
  stop(): Promise<void>
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export async function startLocalArweave(prefix = 'local-arweave-'): Promise<LocalArweave> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const port = await freePort()
  const arlocal = new ArLocal(port, false, join(dir, 'arlocal-db'), false)
  await arlocal.start()
  const gateway = `http://127.0.0.1:${port}`
  const arweave = Arweave.init({ host: '127.0.0.1', port, protocol: 'http' })
  const jwk = await arweave.wallets.generate()
  const walletFile = join(dir, 'wallet.json')
  writeFileSync(walletFile, JSON.stringify(jwk), { mode: 0o600 })
  const address = await arweave.wallets.jwkToAddress(jwk)
  const minted = await fetch(`${gateway}/mint/${address}/1000000000000000`)
  if (minted.status !== 200) throw new Error(`arlocal did not fund the test wallet (${minted.status})`)
  return {
    gateway,
    arweave,
    dir,
    walletFile,
    address,
    async stop() {
      await arlocal.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
