import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { connectVault } from './bridge/vault-client'
import { useConnectionStore } from './stores/connection-store'
import { useNoticesStore } from './stores/notices-store'
import { useSettingsStore } from './stores/settings-store'
import { useUploadsStore } from './stores/uploads-store'
import { refreshOnReturn, useVaultsStore } from './stores/vaults-store'
import './styles.css'
import { text } from './text'

const root = createRoot(document.getElementById('root')!)

// Once the backend is gone the banner says so (App.tsx); a call that was still on its way is no
// script error on top of it.
window.addEventListener('unhandledrejection', (event) => {
  if ((event.reason as { code?: unknown } | null)?.code === 'DISCONNECTED') event.preventDefault()
})

try {
  await connectVault()
  await useSettingsStore.getState().load()
  useNoticesStore.getState().load()
  await Promise.all([
    useConnectionStore.getState().load(),
    useVaultsStore.getState().load(),
    useUploadsStore.getState().load(),
  ])
  refreshOnReturn(document)
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
} catch (error) {
  root.render(
    <div className="panel error-panel startup-error" role="alert">
      <h1>{text.app.couldNotStart}</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
    </div>,
  )
}
