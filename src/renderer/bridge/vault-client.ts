// The renderer's single way to reach the main process: `window.vault` in Electron, the WebSocket
// bridge in browser mode. Everything else in the renderer imports `vault` from here.
import { type RawVaultBridge, unwrapBridge, type VaultBridge } from '../../shared/ipc/bridge'
import { connectWebSocketBridge, type IntakeTransport } from './ws-transport'

declare global {
  interface Window {
    vault?: RawVaultBridge
    vaultFiles?: { pathForFile(file: File): string }
  }
}

let client: VaultBridge | undefined
let intake: IntakeTransport | undefined
let lost: ((listener: () => void) => void) | undefined

export async function connectVault(): Promise<VaultBridge> {
  if (client) return client
  if (window.vault) {
    client = unwrapBridge(window.vault)
    return client
  }
  const token = new URLSearchParams(location.search).get('token')
  if (!token) {
    throw new Error(
      'This page needs the link printed by "npm start" (it contains a one-time token). Open that link instead.',
    )
  }
  const connection = await connectWebSocketBridge(token)
  intake = connection.intake
  lost = connection.onLost
  client = unwrapBridge(connection.bridge)
  return client
}

/** The connected bridge; only valid after connectVault() resolved (main.tsx awaits it before rendering). */
export function vault(): VaultBridge {
  if (!client) throw new Error('The app is not connected to its backend yet.')
  return client
}

/** Browser mode only: tells when the backend went away (the desktop app's main process never does). */
export function onBackendLost(listener: () => void): void {
  lost?.(listener)
}

/** Browser mode only: where dropped files' bytes go (Electron hands over paths instead). */
export function fileIntake(): IntakeTransport | undefined {
  return intake
}
