import { LIMITS } from '../../shared/api'
import type { VaultView } from '../../shared/ipc/vault-types'
import { useConnectionStore } from '../stores/connection-store'
import { useSectionTarget } from '../stores/section-target'
import { useVaultsStore } from '../stores/vaults-store'
import { text } from '../text'
import { AskFirstButton } from './AskFirstButton'
import { LocalMailLink } from './LocalMailPanel'

/** The manual trigger's one control: start the release now (with the days to cancel explained). */
export function StartReleasePanel({ v }: { v: VaultView }) {
  const service = useConnectionStore((s) => s.status?.service)
  const extensions = service?.extensions
  const noMail = !!service && (service.trial || service.mailConfigured === false)
  useSectionTarget('start-release', v.releaseTrigger === 'manual')
  if (v.releaseTrigger !== 'manual' || v.state !== 'active') return null
  const offered = extensions?.includes('release-start') ?? false
  const t = text.startRelease
  const endsOn = new Date(Date.now() + LIMITS.contestationDays * 86_400_000).toISOString()

  return (
    <section className="panel" aria-labelledby="section-start-release">
      <h2 id="section-start-release" tabIndex={-1}>
        {t.title}
      </h2>
      {offered ? (
        <>
          <p>{t.manualNote(LIMITS.contestationDays)}</p>
          <AskFirstButton
            label={t.button}
            className="button danger"
            action={() => useVaultsStore.getState().startRelease(v.id)}
            dialog={{ title: t.confirmTitle, confirmLabel: t.confirm, danger: true }}
          >
            <ul className="plain-list">
              <li>{t.period(LIMITS.contestationDays)}</li>
              <li>{t.whenItEnds(endsOn)}</li>
              <li>{t.toldNothing}</li>
            </ul>
            {noMail && (
              <p className="notice notice-warn">
                {service?.trial ? t.trial : t.noMail} <LocalMailLink label={text.localMail.seeAllMail} />
              </p>
            )}
          </AskFirstButton>
        </>
      ) : (
        <p className="notice notice-info">{t.notOffered}</p>
      )}
    </section>
  )
}
