// The connection as main holds it (summary only: never the key). Fed by connectionChanged.
import { create } from 'zustand'
import type { MailTestResult } from '../../shared/api'
import type { ConnectionStatus } from '../../shared/ipc/vault-types'
import { onBackendLost, vault } from '../bridge/vault-client'
import { writeAccess } from '../display/write-access'

interface ConnectionState {
  status: ConnectionStatus | undefined
  /** Browser mode: the backend stopped, so what the page shows is no longer true and nothing works. */
  backendLost: boolean
  load(): Promise<void>
  set(status: ConnectionStatus): void
  /** Checks the key with the service and keeps it; the new status arrives by connectionChanged. */
  connectService(serviceUrl: string, apiKey: string): Promise<void>
  /** The service on this computer, with a first vault; that vault's id, to open it. */
  startLocally(email: string): Promise<string>
  replaceApiKey(connectionId: string, apiKey: string): Promise<void>
  switchConnection(connectionId: string): Promise<void>
  forgetConnection(connectionId: string): Promise<void>
  /** Credits added on the service on this computer; the balance after. */
  addLocalCredits(credits: number): Promise<number>
  /** The service mails the owner a test message; whether it went. */
  sendTestMail(): Promise<MailTestResult>
}

export const useConnectionStore = create<ConnectionState>((set) => ({
  status: undefined,
  backendLost: false,
  load: async () => {
    onBackendLost(() => set({ backendLost: true }))
    vault().on.connectionChanged((status) => set({ status }))
    set({ status: await vault().getConnectionStatus() })
  },
  set: (status) => set({ status }),
  connectService: async (serviceUrl, apiKey) => {
    await vault().connectService({ serviceUrl, apiKey })
  },
  startLocally: async (email) => (await vault().startLocally({ email })).vault.id,
  replaceApiKey: async (connectionId, apiKey) => {
    await vault().replaceApiKey({ connectionId, apiKey })
  },
  switchConnection: async (connectionId) => {
    await vault().switchConnection({ connectionId })
  },
  forgetConnection: async (connectionId) => {
    await vault().forgetConnection({ connectionId })
  },
  addLocalCredits: async (credits) => (await vault().addLocalCredits({ credits })).creditsBalance,
  sendTestMail: () => vault().sendTestMail(),
}))

export function useWriteAccess() {
  return writeAccess(useConnectionStore((s) => s.status))
}
