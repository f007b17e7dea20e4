import { ReleasingBanner } from '../components/ReleasingBanner'
import { VaultTitle } from '../components/VaultTitle'
import { useNavigationStore, VAULT_TABS, type VaultTab } from '../stores/navigation-store'
import { useVault } from '../stores/vaults-store'
import { text } from '../text'
import { ActivityTab } from './vault/ActivityTab'
import { AssetsTab } from './vault/AssetsTab'
import { GuardiansTab } from './vault/GuardiansTab'
import { HeirsTab } from './vault/HeirsTab'
import { OverviewTab } from './vault/OverviewTab'
import { ReleaseTab } from './vault/ReleaseTab'

const TAB_COMPONENTS: Record<VaultTab, (props: { vaultId: string }) => React.JSX.Element | null> = {
  overview: OverviewTab,
  guardians: GuardiansTab,
  heirs: HeirsTab,
  assets: AssetsTab,
  release: ReleaseTab,
  activity: ActivityTab,
}

export function VaultScreen({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const { tab, setTab, closeVault } = useNavigationStore()
  if (!v) {
    return (
      <section className="screen">
        <p className="muted">{text.vault.notInList}</p>
        <button type="button" className="button secondary" onClick={closeVault}>
          {text.vault.backToVaults}
        </button>
      </section>
    )
  }
  const Tab = TAB_COMPONENTS[tab]
  return (
    <section className="screen" aria-labelledby="vault-title">
      <button type="button" className="link-button back-link" onClick={closeVault}>
        {text.vault.allVaults}
      </button>
      <VaultTitle v={v} />
      <ReleasingBanner vaultView={v} />
      <div className="tabs" role="tablist" aria-label={text.vault.sections}>
        {VAULT_TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="vault-tabpanel"
            tabIndex={tab === t.id ? 0 : -1}
            className="tab"
            onClick={() => setTab(t.id)}
            onKeyDown={(event) => {
              const index = VAULT_TABS.findIndex((x) => x.id === tab)
              const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
              if (!step) return
              const next = VAULT_TABS[(index + step + VAULT_TABS.length) % VAULT_TABS.length]!
              setTab(next.id)
              document.getElementById(`tab-${next.id}`)?.focus()
            }}
          >
            {text.vault.tabs[t.id]}
          </button>
        ))}
      </div>
      <div id="vault-tabpanel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        <Tab vaultId={vaultId} />
      </div>
    </section>
  )
}
