import { useState } from 'react'
import type { VaultView } from '../../shared/ipc/vault-types'
import { useWriteAccess } from '../stores/connection-store'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { AskFirstButton } from './AskFirstButton'
import { ErrorNotice } from './ErrorNotice'
import { useAction } from './use-action'

const t = text.checkInLinks

/**
 * Whether the vault's reminder e-mails carry a one-step check-in link. Off by default: with it, reading
 * the owner's mail is enough to check in, so turning it on asks first and says so; turning it off
 * does not ask (it only makes check-ins safer). Shown only when the service offers the choice.
 */
export function CheckInLinksPanel({ v }: { v: VaultView }) {
  const { canWrite, reason } = useWriteAccess()
  const [done, setDone] = useState<string>()
  const changing = useAction(async (on: boolean) => {
    setDone(undefined)
    await useVaultsStore.getState().setCheckInLinks(v.id, on)
    setDone(on ? t.turnedOn : t.turnedOff)
  })
  const { busy, error } = changing
  if (v.checkInLinks === null || v.state !== 'active' || v.releaseTrigger !== 'dead_man_switch') return null

  return (
    <section className="panel" aria-labelledby="check-in-links-title" data-testid="check-in-links">
      <h2 id="check-in-links-title">{t.title}</h2>
      <p data-testid="check-in-links-state">{v.checkInLinks ? t.on : t.off}</p>
      {v.checkInLinks ? (
        <button
          type="button"
          className="button"
          disabled={!canWrite || busy}
          title={reason ?? undefined}
          onClick={() => void changing.run(false)}
        >
          {t.turnOff}
        </button>
      ) : (
        <AskFirstButton
          label={t.turnOn}
          className="button"
          action={() => changing.run(true)}
          dialog={{ title: t.confirmTitle, confirmLabel: t.confirm, danger: true }}
        >
          <p>
            <strong>{t.tradeOff}</strong>
          </p>
          <p>{t.convenience}</p>
        </AskFirstButton>
      )}
      {done && (
        <p className="status-line" role="status">
          {done}
        </p>
      )}
      {error !== undefined && <ErrorNotice error={error} />}
    </section>
  )
}
