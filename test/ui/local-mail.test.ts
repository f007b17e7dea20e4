// "Mail from the local trial" through the handlers: the embedded service's outbox, read in-process,
// newest first, with the recipient's links; a service elsewhere never shows its mail to the app.

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { LocalServiceHost } from '../../src/main/local-service-host'
import { type RunningService, startService } from '../../src/service'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import type { LocalMailbox } from '../../src/shared/ipc/local-mail'
import type { VaultsSnapshot } from '../../src/shared/ipc/vault-types'

let backend: VaultApp
let remote: RunningService
let dir: string

async function call<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<IpcResponse<T>> {
  return (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>
}
async function ok<T = unknown>(key: keyof typeof invokeChannels, args?: unknown): Promise<T> {
  const response = await call<T>(key, args)
  if (!response.ok) throw new Error(`${key} failed: ${response.error.code} ${response.error.message}`)
  return response.value
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vault-ui-local-mail-'))
  backend = createVaultApp({
    userDataDir: join(dir, 'user-data'),
    mode: 'browser',
    version: '0',
    useKeychain: false,
    localService: (userDataDir) => LocalServiceHost.open(userDataDir),
  })
  remote = await startService({ dataDir: join(dir, 'remote-service'), port: 0 })
})
afterAll(async () => {
  await backend?.close()
  await remote?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('mail from the local trial', () => {
  let localConnectionId: string
  let vaultId: string

  it('shows the invitation a new guardian would have been e-mailed, with its links, not sent for want of a mail server', async () => {
    const started = await ok<{ connection: { id: string }; vault: { id: string } }>('startLocally', {
      email: 'me@example.com',
    })
    localConnectionId = started.connection.id
    vaultId = started.vault.id
    const before = await ok<LocalMailbox>('listLocalMail')
    expect(before.messages).toEqual([])

    await ok('addGuardian', { vaultId, person: { name: 'Ann', email: 'ann@example.com' } })
    await ok('addGuardian', { vaultId, person: { name: 'Bo', email: 'bo@example.com' } })
    const mailbox = await ok<LocalMailbox>('listLocalMail')
    expect(new URL(mailbox.serviceUrl).hostname).toBe('127.0.0.1')
    // Newest first.
    expect(mailbox.messages.map((m) => m.to)).toEqual(['bo@example.com', 'ann@example.com'])
    const invitation = mailbox.messages[1]!
    expect(invitation).toMatchObject({
      kind: 'guardian_invitation',
      vaultId,
      subject: 'me@example.com asks you to be a guardian of their digital-inheritance vault',
      delivery: { state: 'not-sent', reason: 'no-mail-server' },
    })
    expect(Date.parse(invitation.createdAt)).not.toBeNaN()
    // The body is opened (not the sealed form the database holds), with the guardian's personal links.
    expect(invitation.body).not.toMatch(/^sealed-1\./)
    const accept = invitation.body.match(/Accept:\s+(\S+)/)?.[1]
    expect(accept).toMatch(new RegExp(`^${mailbox.serviceUrl}/guardian/[^/]+/accept$`))

    // The owner plays the guardian: the link works, and the app sees the guardian accepted.
    const page = await fetch(accept!, { method: 'POST', headers: { origin: mailbox.serviceUrl } })
    expect(page.status).toBe(200)
    const guardians = await ok<{ items: Array<{ email: string; status: string }> }>('listGuardians', {
      vaultId,
    })
    expect(guardians.items.find((g) => g.email === 'ann@example.com')?.status).toBe('accepted')
    // Readiness agrees with the list just read, without waiting for polling (hourly) or a refresh.
    const snapshot = await ok<VaultsSnapshot>('getVaults')
    const item = snapshot.vaults
      .find((v) => v.id === vaultId)
      ?.readiness.items.find((i) => i.id === 'guardians')
    expect(item?.detail).toBe('1 of the 2 needed have accepted; 1 not answered yet.')
  })

  it('a service elsewhere: refused with "only the service on this computer", nothing read', async () => {
    const account = await remote.admin.createAccount({ email: 'owner@example.com' })
    const remoteVault = await remote.admin.createVault({ account: account.accountId, preset: 'standard' })
    await ok('connectService', { serviceUrl: remote.url, apiKey: account.apiKey })
    // The remote service has mail in its outbox too: the app must not show it.
    await ok('addGuardian', {
      vaultId: remoteVault.vaultId,
      person: { name: 'Cy', email: 'cy@example.com' },
    })
    expect((await remote.admin.outbox()).messages).toHaveLength(1)
    const refused = await call('listLocalMail')
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.error.code).toBe('NOT_LOCAL')
    expect(refused.error.message).toContain('only for the Vault Service on this computer')

    // Back to the trial: its mail is there again.
    await ok('switchConnection', { connectionId: localConnectionId })
    expect((await ok<LocalMailbox>('listLocalMail')).messages).toHaveLength(2)
  })
})
