import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { connectVault } from './bridge/vault-client'
import { useSettingsStore } from './stores/settings-store'
import './styles.css'

const root = createRoot(document.getElementById('root')!)

try {
  await connectVault()
  await useSettingsStore.getState().load()
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
} catch (error) {
  root.render(
    <div className="panel error-panel startup-error" role="alert">
      <h1>Vault Desktop could not start</h1>
      <p>{error instanceof Error ? error.message : String(error)}</p>
    </div>,
  )
}
