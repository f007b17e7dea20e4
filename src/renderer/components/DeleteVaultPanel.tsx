import type { VaultView } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'
import { deletionLosses } from '../display/readiness-text'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { AskFirstButton } from './AskFirstButton'

const t = text.deleteVault

/** The danger zone: delete an active vault for good, after saying exactly what goes with it. */
export function DeleteVaultPanel({ v }: { v: VaultView }) {
  const extensions = useConnectionStore((s) => s.status?.service?.extensions)
  const closeVault = useNavigationStore((s) => s.closeVault)
  if (v.state !== 'active') return null
  const offered = extensions?.includes('vault-delete') ?? false

  const remove = async () => {
    await vault().deleteVault({ vaultId: v.id })
    closeVault()
    void useVaultsStore
      .getState()
      .refresh()
      .catch(() => undefined)
  }

  return (
    <section className="panel danger-zone" aria-labelledby="delete-vault-title">
      <h2 id="delete-vault-title">{t.title}</h2>
      {offered ? (
        <>
          <p className="muted small">{t.note}</p>
          <AskFirstButton
            label={t.button}
            className="button danger"
            action={remove}
            dialog={{ title: t.confirmTitle(v.label), confirmLabel: t.confirm, danger: true }}
          >
            <p>
              <strong>{t.cannotUndo}</strong> {t.deletes(deletionLosses(v))}
            </p>
            <ul className="plain-list">
              <li>{t.nobody}</li>
              <li>{t.kits}</li>
              <li>{t.localFiles}</li>
            </ul>
          </AskFirstButton>
        </>
      ) : (
        <p className="muted small">{t.notOffered}</p>
      )}
    </section>
  )
}
