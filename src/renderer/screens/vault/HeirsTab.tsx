import { useEffect } from 'react'
import { type Heir, LIMITS } from '../../../shared/api'
import { LocalMailLink } from '../../components/LocalMailPanel'
import { useAction } from '../../components/use-action'
import { useWriteAccess } from '../../stores/connection-store'
import { usePeopleStore } from '../../stores/people-store'
import { useVault } from '../../stores/vaults-store'
import { format, text } from '../../text'
import { PeopleTab, type TabAction } from './PeopleTab'

const t = text.heirs

export function HeirsTab({ vaultId }: { vaultId: string }) {
  const v = useVault(vaultId)
  const entry = usePeopleStore((s) => s.byVault[vaultId])
  const load = usePeopleStore((s) => s.loadHeirs)
  const { addHeir, removeHeir } = usePeopleStore.getState()
  const { canWrite } = useWriteAccess()
  const action: TabAction = useAction((work: () => Promise<unknown>) => work())

  // biome-ignore lint/correctness/useExhaustiveDependencies: re-read when the vault's count moves (a change made elsewhere)
  useEffect(() => {
    void load(vaultId)
  }, [load, vaultId, v?.heirCount])
  if (!v) return null

  return (
    <PeopleTab
      t={t}
      countTestId="heir-count"
      max={LIMITS.maxHeirs}
      note={t.note(LIMITS.contestationDays)}
      people={entry?.heirs ?? []}
      listed={entry}
      onReload={() => void load(vaultId)}
      columns={[
        {
          header: t.wallet,
          cell: (h: Heir) =>
            h.walletAddress ? <code>{`${h.walletAddress.slice(0, 8)}…`}</code> : text.common.notSet,
        },
        { header: t.added, cell: (h: Heir) => format.date(h.addedAt) },
      ]}
      afterList={<LocalMailLink lead={text.localMail.heirsLead} label={text.localMail.seeAllMail} />}
      fullNote={<p data-testid="heir-limit">{t.limit(LIMITS.maxHeirs)}</p>}
      writable={canWrite && v.state === 'active'}
      action={action}
      onAdd={async (person) => {
        await addHeir(vaultId, person)
        void load(vaultId)
      }}
      onRemove={async (heirId) => {
        await removeHeir(vaultId, heirId)
        await load(vaultId)
      }}
      removeNote={t.removeNote}
    />
  )
}
