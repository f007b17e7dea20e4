import { LIMITS } from '../../shared/api'
import type { VaultView } from '../../shared/ipc/vault-types'
import { releaseProgress } from '../display/release-text'
import { useWriteAccess } from '../stores/connection-store'
import { useVaultsStore } from '../stores/vaults-store'
import { format, text } from '../text'
import { AskFirstButton } from './AskFirstButton'
import { UntrustedName } from './UntrustedName'

const t = text.releaseStatus

/** The dates of a started release, one sentence each. */
export function ReleaseDates({ v }: { v: VaultView }) {
  const progress = releaseProgress(v, Date.now(), LIMITS.contestationDays)
  if (!progress) return null
  if (progress.state === 'released') {
    return <span data-testid="release-access">{t.releasedOn(format.date(progress.accessAt))}</span>
  }
  return (
    <>
      {progress.startedAt && (
        <span data-testid="release-started">{t.startedOn(format.date(progress.startedAt))}</span>
      )}{' '}
      <span data-testid="release-access">{t.accessOn(format.date(progress.accessAt))}</span>{' '}
      <strong data-testid="release-days-left">{t.daysLeft(progress.daysLeft)}</strong>
    </>
  )
}

/** "Cancel release" with its confirmation; shown wherever a releasing vault is. */
export function CancelReleaseButton({ v }: { v: VaultView }) {
  const { canWrite, reason } = useWriteAccess()
  return (
    <AskFirstButton
      label={t.cancelRelease}
      className="button danger-solid"
      action={() => useVaultsStore.getState().cancelRelease(v.id)}
      dialog={{ title: t.cancelTitle, confirmLabel: t.cancelRelease }}
      afterButton={!canWrite && <p className="banner-note">{reason}</p>}
    >
      <p>{t.cancelBody}</p>
    </AskFirstButton>
  )
}

/** An active vault some guardians claimed, short of a release: who claimed last, how many, what to do. */
function ClaimBanner({ v }: { v: VaultView }) {
  const claims = v.claims!
  return (
    <div className="releasing-banner claim-banner" role="alert" data-testid="claim-banner">
      <div>
        <strong>{t.claimedTitle}</strong> <UntrustedName name={claims.lastBy} />{' '}
        {t.claimedBy(format.date(claims.lastAt))} {t.claimedCount(claims.count, claims.needed)}{' '}
        {t.claimedAdvice(LIMITS.contestationDays)}
      </div>
    </div>
  )
}

/** Shown on every screen of a releasing vault (dates, days left, the way to stop it), or a released one. */
export function ReleasingBanner({ vaultView }: { vaultView: VaultView }) {
  if (vaultView.state === 'released') {
    return (
      <div className="released-banner" role="status" data-testid="released-banner">
        <strong>{t.releasedTitle}.</strong> <ReleaseDates v={vaultView} />
      </div>
    )
  }
  if (vaultView.state === 'active' && vaultView.claims) return <ClaimBanner v={vaultView} />
  if (vaultView.state !== 'releasing') return null
  return (
    <div className="releasing-banner" role="alert" data-testid="releasing-banner">
      <div>
        <strong>{t.releasingIntro}</strong> <ReleaseDates v={vaultView} /> {t.notIntended}
      </div>
      <CancelReleaseButton v={vaultView} />
    </div>
  )
}
