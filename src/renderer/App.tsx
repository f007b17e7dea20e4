import { lazy, Suspense, useEffect } from 'react'
import iconUrl from '../../resources/icon.svg'
import { revealControls } from '../shared/untrusted-text'
import { DropTarget } from './components/DropTarget'
import { ErrorBoundary } from './components/ErrorBoundary'
import { OwnerKitFlow } from './components/OwnerKitFlow'
import { Toasts } from './components/Toasts'
import { UploadConfirm } from './components/UploadConfirm'
import { VaultsScreen } from './screens/VaultsScreen'
import { useConnectionStore } from './stores/connection-store'
import { SCREENS, type ScreenId, useNavigationStore } from './stores/navigation-store'
import { useSettingsStore } from './stores/settings-store'
import { useVaultsStore } from './stores/vaults-store'
import { langOf, text } from './text'

// Recovery (with its QR reader) and Settings load when first opened: the owner's everyday window
// starts without them.
const RecoveryScreen = lazy(() =>
  import('./screens/RecoveryScreen').then((m) => ({ default: m.RecoveryScreen })),
)
const SettingsScreen = lazy(() =>
  import('./screens/SettingsScreen').then((m) => ({ default: m.SettingsScreen })),
)

const SCREEN_COMPONENTS: Record<ScreenId, React.ComponentType> = {
  vaults: VaultsScreen,
  recovery: RecoveryScreen,
  settings: SettingsScreen,
}

export function App() {
  const { screen, go, vaultId, tab } = useNavigationStore()
  const theme = useSettingsStore((state) => state.settings?.theme)
  const releasing = useVaultsStore(
    (s) => s.snapshot?.vaults.filter((v) => v.state === 'releasing').length ?? 0,
  )
  const vaultLabel = useVaultsStore((s) => s.snapshot?.vaults.find((v) => v.id === vaultId)?.label)
  const Screen = SCREEN_COMPONENTS[screen]
  const backendLost = useConnectionStore((s) => s.backendLost)

  // The window (and the taskbar, Alt+Tab) names the screen and the vault; Electron follows the page.
  useEffect(() => {
    const where =
      screen === 'vaults' && vaultId && vaultLabel
        ? [revealControls(vaultLabel), text.vault.tabs[tab]]
        : [text.screens[screen]]
    document.title = text.windowTitle.join([...where, text.app.name])
  }, [screen, vaultId, vaultLabel, tab])

  useEffect(() => {
    if (!theme || theme === 'system') document.documentElement.removeAttribute('data-theme')
    else document.documentElement.dataset.theme = theme
  }, [theme])

  return (
    <div className="shell">
      <nav className="sidebar" aria-label={text.app.mainNavigation} inert={backendLost}>
        <div className="brand">
          <img src={iconUrl} alt="" width="28" height="28" />
          <span>{text.app.name}</span>
        </div>
        <ul>
          {SCREENS.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                className="nav-item"
                aria-current={screen === item.id ? 'page' : undefined}
                onClick={() => go(item.id)}
              >
                <span lang={langOf('screens', item.id)}>{text.screens[item.id]}</span>
                {item.id === 'vaults' && releasing > 0 && (
                  <span className="nav-alarm">{text.app.releasingBadge(releasing)}</span>
                )}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      {backendLost && (
        <div className="backend-lost" role="alert" data-testid="backend-lost">
          <strong>{text.app.backendLostTitle}</strong> {text.app.backendLost}
        </div>
      )}
      {/* Stale and unusable once the backend is gone: shown dimmed, and nothing in it can be pressed. */}
      <main className="content" inert={backendLost}>
        <ErrorBoundary key={`${screen}:${vaultId ?? ''}`}>
          <Suspense fallback={<p className="muted">{text.app.loadingScreen}</p>}>
            <Screen />
          </Suspense>
        </ErrorBoundary>
      </main>
      <DropTarget />
      <UploadConfirm />
      <OwnerKitFlow />
      <Toasts />
    </div>
  )
}
