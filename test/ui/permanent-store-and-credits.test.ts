// What the app says about the service's store and its credits (issue 27, points 7 to 9): on a permanent
// store (Arweave) the delete confirmation and the first upload say the files stay readable for ever and
// never that the kits stop mattering; "Buy credits" opens the operator's page the service names, or says
// to ask the operator, never the service's root; turning the check-in on unlock off says whether the
// key still works on the service.

import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createElement, type FunctionComponent } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dispatch } from '../../src/main/core/ipc/handler-table'
import { createVaultApp, type VaultApp } from '../../src/main/core/vault-app'
import { text } from '../../src/renderer/text'
import type { ServiceInfo } from '../../src/shared/api'
import { invokeChannels } from '../../src/shared/ipc/contract'
import type { IpcResponse } from '../../src/shared/ipc/contract-kit'
import type {
  ConnectionStatus,
  ServiceSummary,
  UnlockCheckInStatus,
  VaultView,
} from '../../src/shared/ipc/vault-types'

// The components are loaded at run time: the Node typecheck of test/ has no JSX or DOM.
const renderer = '../../src/renderer'
const { DeleteVaultConsequences } = (await import(`${renderer}/components/DeleteVaultPanel.tsx`)) as {
  DeleteVaultConsequences: FunctionComponent<{ v: Partial<VaultView>; storage: ServiceSummary['storage'] }>
}
const { PermanentStoreNotice } = (await import(`${renderer}/components/UploadConfirm.tsx`)) as {
  PermanentStoreNotice: FunctionComponent<{ first: boolean }>
}
const { CheckInLinksPanel } = (await import(`${renderer}/components/CheckInLinksPanel.tsx`)) as {
  CheckInLinksPanel: FunctionComponent<{ v: Partial<VaultView> }>
}
const { turnedOffText } = (await import(`${renderer}/screens/SettingsScreen.tsx`)) as {
  turnedOffText: (result: UnlockCheckInStatus) => string
}
const { useConnectionStore } = await import(`${renderer}/stores/connection-store.ts`)
const { useVaultsStore } = await import(`${renderer}/stores/vaults-store.ts`)
const { firstOnPermanentStore } = await import(`${renderer}/stores/upload-flow-store.ts`)

const ARWEAVE = { kind: 'arweave', permanent: true } as const
const FOLDER = { kind: 'folder', permanent: false } as const
const vaultView = { assetCount: 3, guardianCount: 2, heirCount: 1 } as Partial<VaultView>
/** Text as a reader sees it (tags gone, entities decoded). */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')

describe('the delete-vault confirmation', () => {
  const say = (storage: ServiceSummary['storage']) =>
    visible(renderToStaticMarkup(createElement(DeleteVaultConsequences, { v: vaultView, storage })))

  it('on a permanent store: the files stay public and open to a threshold of kits; kits never said to stop mattering', () => {
    const shown = say(ARWEAVE)
    expect(shown).toContain(text.deleteVault.permanentStore)
    expect(shown).toContain(text.deleteVault.permanentKits)
    expect(shown).toContain('stay public for ever')
    expect(shown).not.toMatch(/stop mattering|can be destroyed|The service deletes/)
    expect(shown).toContain('The service forgets 3 files, 2 guardians, and 1 heir')
  })

  it('on a store that erases (a folder): the kits stop mattering, as before', () => {
    const shown = say(FOLDER)
    expect(shown).toContain(text.deleteVault.kits)
    expect(shown).toContain('The service deletes 3 files')
    expect(shown).not.toContain(text.deleteVault.permanentStore)
  })

  it('a service that does not say: nothing promised about the kits, and the reason given', () => {
    const shown = say(null)
    expect(shown).toContain(text.deleteVault.unknownStore)
    expect(shown).not.toMatch(/stop mattering|can be destroyed/)
  })
})

describe('the first upload to a vault on a permanent store', () => {
  const service = (storage: ServiceSummary['storage']) =>
    ({ service: { storage, extensions: [] } }) as unknown as ConnectionStatus
  const vaults = (assetCount: number) =>
    useVaultsStore.setState({
      snapshot: {
        connectionId: 'c',
        vaults: [{ id: 'vlt_1', assetCount } as VaultView],
        fetchedAt: null,
        error: null,
      },
    })

  it('is asked whatever its cost when the vault holds nothing yet; not on a folder, nor once files are there', () => {
    useConnectionStore.setState({ status: service(ARWEAVE) })
    vaults(0)
    expect(firstOnPermanentStore('vlt_1')).toBe(true)
    vaults(2)
    expect(firstOnPermanentStore('vlt_1')).toBe(false)
    useConnectionStore.setState({ status: service(FOLDER) })
    vaults(0)
    expect(firstOnPermanentStore('vlt_1')).toBe(false)
    useConnectionStore.setState({ status: service(null) })
    expect(firstOnPermanentStore('vlt_1')).toBe(false)
  })

  it('the cost confirmation says the files are public and readable by a threshold of kits, for ever', () => {
    // The dialog's own store hooks render their initial state on a server render, so the notice it
    // shows on a permanent store is rendered alone (UploadConfirm shows it whenever storage.permanent).
    const first = visible(renderToStaticMarkup(createElement(PermanentStoreNotice, { first: true })))
    expect(first).toContain(text.uploadCost.permanentStore)
    expect(first).toContain(text.uploadCost.permanentFirst)
    expect(first).toMatch(/public.*enough of the guardians' kits.*decades/)
    const later = visible(renderToStaticMarkup(createElement(PermanentStoreNotice, { first: false })))
    expect(later).not.toContain(text.uploadCost.permanentFirst)
  })
})

describe('the one-step check-in link in reminders (Release tab)', () => {
  const render = (over: Partial<VaultView>) =>
    visible(
      renderToStaticMarkup(
        createElement(CheckInLinksPanel, {
          v: {
            id: 'vlt_1',
            state: 'active',
            releaseTrigger: 'dead_man_switch',
            checkInLinks: false,
            ...over,
          },
        }),
      ),
    )
  it('off by default says reading the mail is not enough; on says anyone who reads it can check in', () => {
    const off = render({ checkInLinks: false })
    expect(off).toContain(text.checkInLinks.off)
    expect(off).toContain(text.checkInLinks.turnOn)
    const on = render({ checkInLinks: true })
    expect(on).toContain('Anyone who can read your mail can check in for you')
    expect(on).toContain(text.checkInLinks.turnOff)
    expect(text.checkInLinks.tradeOff).toMatch(/^Anyone who can read your mail can check in for you\./)
  })
  it('not shown when the service offers no choice, or the vault has no dead man switch', () => {
    expect(render({ checkInLinks: null })).toBe('')
    expect(render({ releaseTrigger: 'manual' })).toBe('')
  })
})

describe('turning the check-in on unlock off says what became of the key', () => {
  const base: UnlockCheckInStatus = {
    enabled: false,
    local: false,
    connectionLabel: 'vault.example.org',
    agentKey: null,
  }
  it('revoked on the service, or still valid there with where to revoke it', () => {
    expect(turnedOffText({ ...base, removedKey: { last4: 'a1b2', revokedOnService: true } })).toBe(
      text.unlockCheckIn.turnedOffRevoked,
    )
    const still = turnedOffText({ ...base, removedKey: { last4: 'a1b2', revokedOnService: false } })
    expect(still).toContain('still works on vault.example.org')
    expect(still).toContain('ending in a1b2')
    expect(turnedOffText(base)).toBe(text.unlockCheckIn.turnedOff)
  })
  it('the texts say what an agent key reads and that it can keep checking in', () => {
    const said = `${text.unlockCheckIn.keyCan} ${text.unlockCheckIn.keyCannot}`
    for (const part of [
      'names of your files',
      'e-mail addresses of your guardians and heirs',
      'encrypted files',
      'check in',
    ]) {
      expect(said).toContain(part)
    }
    // No text of the setting says the key is harmless: it reads names, addresses and ciphertext.
    const every = Object.values(text.unlockCheckIn).map((m) =>
      typeof m === 'function' ? (m as (...a: string[]) => string)('a1b2', 'vault.example.org') : m,
    )
    for (const sentence of every) expect(sentence).not.toMatch(/no harm|cannot do harm|harmless/)
  })
})

// ---- the app against a service that answers GET /service as it pleases ----

describe('the app reads storage and the credits page from GET /service', () => {
  let info: Partial<ServiceInfo> & Record<string, unknown>
  let server: Server
  let url: string
  let backend: VaultApp
  let dir: string
  const call = async <T>(key: keyof typeof invokeChannels, args?: unknown) =>
    (await dispatch(backend.handlers, invokeChannels[key].name, args)) as IpcResponse<T>

  beforeAll(async () => {
    server = createServer((request, response) => {
      const meta = { timestamp: new Date().toISOString(), requestId: 'r' }
      const body = request.url?.endsWith('/service') ? { data: info, meta } : { data: [], meta }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    })
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((done) => server.close(done))
  })

  async function summaryFor(answer: Record<string, unknown>): Promise<ServiceSummary> {
    info = {
      service: 'vault-desktop-local',
      extensions: [],
      publicUrl: url,
      mail: { configured: false, lastTest: null },
      ...answer,
    }
    dir = await mkdtemp(join(tmpdir(), 'vault-permanent-'))
    backend = createVaultApp({ userDataDir: dir, mode: 'browser', version: '0', useKeychain: false })
    try {
      const connected = await call('connectService', {
        serviceUrl: url,
        apiKey: `sk_human_${'x'.repeat(32)}`,
      })
      expect(connected.ok).toBe(true)
      let summary: ServiceSummary | null = null
      await expect
        .poll(
          async () => {
            const status = await call<ConnectionStatus>('getConnectionStatus')
            summary = status.ok ? status.value.service : null
            return summary
          },
          { timeout: 10_000 },
        )
        .not.toBeNull()
      return summary!
    } finally {
      await backend.close()
      await rm(dir, { recursive: true, force: true })
    }
  }

  it('an Arweave-backed service with a credits page: both reach the window', async () => {
    const summary = await summaryFor({
      storage: ARWEAVE,
      operator: { creditsUrl: 'https://ops.example.org/credits' },
    })
    expect(summary.storage).toEqual(ARWEAVE)
    expect(summary.credits).toEqual({ addHere: false, buyAt: 'https://ops.example.org/credits' })
  })

  it('no credits page: no link at all (never the service root, an API that answers 404 to a browser)', async () => {
    const summary = await summaryFor({ storage: FOLDER, operator: { creditsUrl: null } })
    expect(summary.credits.buyAt).toBeNull()
  })

  it('a credits page that is not http(s) is never shown as a link', async () => {
    for (const creditsUrl of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url']) {
      expect((await summaryFor({ storage: FOLDER, operator: { creditsUrl } })).credits.buyAt).toBeNull()
    }
  })

  it('an older service that says neither: storage unknown (null), no link', async () => {
    const summary = await summaryFor({})
    expect(summary.storage).toBeNull()
    expect(summary.credits.buyAt).toBeNull()
  })
})
