// Issue 26, point 8: a vault key is made once, when its vault is made, and never again. Reproduced
// on a computer without a keychain: start locally, restart, start locally again. The vault comes
// back (same id) and must say that its key is gone from this computer and ask for the owner kit,
// not carry a brand-new key that no guardian kit opens.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'

let dir: string
let apps: VaultApp[] = []

function openApp(): VaultApp {
  const app = createVaultApp({
    userDataDir: join(dir, 'user-data'),
    mode: 'browser',
    version: '0',
    useKeychain: false,
    localService: (userDataDir) => LocalServiceHost.open(userDataDir),
  })
  apps.push(app)
  return app
}

async function call<T>(app: VaultApp, key: keyof typeof invokeChannels, args?: unknown) {
  return (await dispatch(app.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
}
async function ok<T>(app: VaultApp, key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const response = await call<T>(app, key, args)
  if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
  return response.value
}

/** The owner confirms by typing the vault's name, as the window asks before the owner kit shows. */
async function unlockOwnerKit(app: VaultApp, vaultId: string): Promise<void> {
  const gate = await ok<{ typeThis: string }>(app, 'getOwnerKitGate', { vaultId })
  await ok(app, 'openOwnerKitGate', { vaultId, typed: gate.typeThis })
}

/** The owner kit's words as printed on its page. */
function wordsOf(html: string): string {
  return [...html.matchAll(/<span class="w">([^<]+)<\/span>/g)].map((m) => m[1]).join(' ')
}

interface StartedVault {
  id: string
  keyOnDevice: boolean
  keyLost: { keptIn: string; fingerprint: string } | null
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-key-once-'))
  apps = []
})
afterEach(async () => {
  for (const app of apps) await app.close()
  await rm(dir, { recursive: true, force: true })
})

describe('a vault key is made once', () => {
  it('after a restart without a keychain, the first vault asks for its owner kit instead of getting a new key', async () => {
    const first = openApp()
    const started = await ok<{ vault: StartedVault }>(first, 'startLocally', { email: 'me@example.com' })
    expect(started.vault.keyOnDevice).toBe(true)
    await unlockOwnerKit(first, started.vault.id)
    const kit = await ok<{ fingerprint: string; html: string }>(first, 'getOwnerKit', {
      vaultId: started.vault.id,
    })
    await first.close()

    const second = openApp()
    const again = await ok<{ vault: StartedVault }>(second, 'startLocally', { email: 'me@example.com' })
    expect(again.vault.id).toBe(started.vault.id)
    // The key lived in memory and went with the first run: no new key may take its place.
    expect(again.vault.keyOnDevice).toBe(false)
    expect(started.vault.keyLost).toBeNull()
    expect(again.vault.keyLost).toEqual({ keptIn: 'memory', fingerprint: kit.fingerprint })
    await unlockOwnerKit(second, started.vault.id)
    const noKit = await call(second, 'getOwnerKit', { vaultId: started.vault.id })
    expect(noKit).toMatchObject({ ok: false, error: { code: 'VAULT_KEY_PROBLEM' } })

    // Pressing "Start locally" once more changes nothing.
    const third = await ok<{ vault: StartedVault }>(second, 'startLocally', { email: 'me@example.com' })
    expect(third.vault).toMatchObject({ id: started.vault.id, keyOnDevice: false })
    expect(third.vault.keyLost).toEqual({ keptIn: 'memory', fingerprint: kit.fingerprint })

    // The owner kit brings back the very key the vault was made with.
    const back = await ok<StartedVault>(second, 'importOwnerKit', {
      vaultId: started.vault.id,
      words: wordsOf(kit.html),
    })
    expect(back).toMatchObject({ keyOnDevice: true, keyLost: null })
    await unlockOwnerKit(second, started.vault.id)
    const kitAgain = await ok<{ fingerprint: string }>(second, 'getOwnerKit', { vaultId: started.vault.id })
    expect(kitAgain.fingerprint).toBe(kit.fingerprint)
  })
})
