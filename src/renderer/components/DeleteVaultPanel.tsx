import type { ServiceSummary, VaultView } from '../../shared/ipc/vault-types'
import { deletionLosses } from '../display/readiness-text'
import { useConnectionStore } from '../stores/connection-store'
import { useNavigationStore } from '../stores/navigation-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { AskFirstButton } from './AskFirstButton'

const t = text.deleteVault

/**
 * The danger zone: delete an active vault for good, after saying exactly what goes with it. On a
 * permanent store (or one that does not say) the files outlive the delete, so the kits keep mattering.
 */
export function DeleteVaultPanel({ v }: { v: VaultView }) {
  const extensions = useConnectionStore((s) => s.status?.service?.extensions)
  // What a delete does to the stored files: erased (a folder), kept for ever (Arweave), or not said.
  const storage = useConnectionStore((s) => s.status?.service?.storage)
  const permanent = storage?.permanent === true
  const closeVault = useNavigationStore((s) => s.closeVault)
  if (v.state !== 'active') return null
  const offered = extensions?.includes('vault-delete') ?? false

  const remove = async () => {
    await useVaultsStore.getState().remove(v.id)
    closeVault()
  }

  return (
    <section className="panel danger-zone" aria-labelledby="delete-vault-title">
      <h2 id="delete-vault-title">{t.title}</h2>
      {offered ? (
        <>
          <p className="muted small">{permanent ? t.notePermanent : t.note}</p>
          <AskFirstButton
            label={t.button}
            className="button danger"
            action={remove}
            dialog={{ title: t.confirmTitle(v.label), confirmLabel: t.confirm, danger: true }}
          >
            <DeleteVaultConsequences v={v} storage={storage ?? null} />
          </AskFirstButton>
        </>
      ) : (
        <p className="muted small">{t.notOffered}</p>
      )}
    </section>
  )
}

/**
 * What deleting the vault does, as the confirmation says it. Only a store that erases (a folder) lets
 * the kits stop mattering; on a permanent one (Arweave), or one that does not say, the files outlive it.
 */
export function DeleteVaultConsequences({
  v,
  storage,
}: {
  v: VaultView
  storage: ServiceSummary['storage']
}) {
  const permanent = storage?.permanent === true
  return (
    <>
      <p>
        <strong>{t.cannotUndo}</strong>{' '}
        {permanent ? t.forgets(deletionLosses(v)) : t.deletes(deletionLosses(v))}
      </p>
      {permanent && (
        <div className="notice notice-warn" data-testid="delete-vault-permanent">
          <p>{t.permanentStore}</p>
          <p>{t.permanentKits}</p>
        </div>
      )}
      {!storage && (
        <p className="notice notice-warn" data-testid="delete-vault-unknown-store">
          {t.unknownStore}
        </p>
      )}
      <ul className="plain-list">
        <li>{t.nobody}</li>
        {storage && !permanent && <li>{t.kits}</li>}
        <li>{t.localFiles}</li>
      </ul>
    </>
  )
}
