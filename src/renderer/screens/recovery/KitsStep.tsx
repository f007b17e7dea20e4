import type { Dispatch } from 'react'
import type { ShareCheck } from '../../../shared/ipc/vault-types'
import { isolateName } from '../../../shared/untrusted-text'
import { ErrorNotice } from '../../components/ErrorNotice'
import { decodeQrFromFile } from '../../display/qr-image'
import { useRecoveryStore } from '../../stores/recovery-store'
import { coreLang, format, text } from '../../text'
import type { KitsInHand, RecoveryEvent, ShareEntry } from './recovery-state'

const t = text.recovery

/** A kit as the check read it: in the window's words when its parts are known, else the core's sentence. */
function KitReading({ check }: { check: ShareCheck }) {
  if (!check.ok) {
    return (
      <span className="text-danger small">
        {t.kitNotRead} <span lang={coreLang}>{check.message}</span>
      </span>
    )
  }
  if (check.practiceUntil && check.shareIndex && check.shares) {
    return (
      <span className="text-ok small" data-testid="kit-practice">
        ✓ {t.kitReadPractice(check.shareIndex, check.shares, check.practiceUntil)}
      </span>
    )
  }
  const parts = check.shareIndex && check.shares && check.vaultFingerprint && check.splitId
  return (
    <span className="text-ok small">
      ✓{' '}
      {parts ? (
        t.kitRead(check.shareIndex!, check.shares!, check.vaultFingerprint!, check.splitId!)
      ) : (
        <span lang={coreLang}>{check.message}</span>
      )}
    </span>
  )
}

/** Step 2: the guardians' kits, typed or read from a photo, each checked as it is entered. */
export function KitsStep({
  shares,
  kits,
  dispatch,
}: {
  shares: ShareEntry[]
  kits: KitsInHand
  dispatch: Dispatch<RecoveryEvent>
}) {
  const { valid, threshold, total, fingerprints, mixedVaults, perSet, mixedSets, enough, practice } = kits

  const check = async (id: number, words: string) => {
    if (!words.trim()) return dispatch({ type: 'share', id, patch: { check: undefined, error: undefined } })
    try {
      dispatch({ type: 'share-checked', id, check: await useRecoveryStore.getState().checkShare(words) })
    } catch (e) {
      dispatch({ type: 'share', id, patch: { check: undefined, error: e } })
    }
  }

  const fromImage = async (id: number, file: File | undefined) => {
    if (!file) return
    try {
      const words = await decodeQrFromFile(file)
      dispatch({ type: 'share', id, patch: { text: words } })
      await check(id, words)
    } catch (e) {
      dispatch({ type: 'share', id, patch: { error: e } })
    }
  }

  return (
    <div className="panel">
      <h2>{t.kitsStep}</h2>
      <p className="muted">{t.kitsStepNote}</p>
      {practice && (
        <p className="notice notice-info" data-testid="practice-mode">
          {t.practiceMode}
        </p>
      )}
      <p className="share-count" role="status" data-testid="share-count">
        {!threshold
          ? valid.length === 0
            ? t.noKits
            : t.kitsEntered(valid.length)
          : mixedVaults
            ? t.kitsEntered(valid.length)
            : enough
              ? t.kitsEnough(valid.length, threshold, total ?? threshold)
              : t.kitsShort(Math.max(0, ...perSet.values()), threshold, total ?? threshold)}
      </p>
      {mixedVaults && (
        <div className="notice notice-warn" role="alert" data-testid="kits-mixed-vaults">
          <p>{t.mixedVaults(format.list(fingerprints.map(isolateName)))}</p>
        </div>
      )}
      {mixedSets && enough && (
        <div className="notice notice-warn" data-testid="kits-mixed-sets">
          <p>{t.mixedSetsEnough}</p>
        </div>
      )}
      {mixedSets && !enough && (
        <div className="notice notice-warn" role="alert">
          <p>{t.mixedSetsShort}</p>
        </div>
      )}
      {shares.map((s, index) => (
        <div key={s.id} className="share-entry">
          <label htmlFor={`share-${s.id}`}>{t.kit(index + 1)}</label>
          <textarea
            id={`share-${s.id}`}
            rows={5}
            value={s.text}
            spellCheck={false}
            onChange={(e) =>
              dispatch({ type: 'share', id: s.id, patch: { text: e.target.value, check: undefined } })
            }
            onBlur={(e) => void check(s.id, e.target.value)}
            placeholder={t.kitPlaceholder}
          />
          <div className="row">
            <label className="button secondary small file-button">
              {t.readPhoto}
              <input
                type="file"
                accept="image/*"
                className="visually-hidden"
                onChange={(e) => void fromImage(s.id, e.target.files?.[0])}
              />
            </label>
            {shares.length > 1 && (
              <button
                type="button"
                className="link-button small"
                onClick={() => dispatch({ type: 'remove-share', id: s.id })}
              >
                {t.remove}
              </button>
            )}
            {s.check && <KitReading check={s.check} />}
          </div>
          {s.error !== undefined && <ErrorNotice error={s.error} />}
        </div>
      ))}
      <button type="button" className="button secondary" onClick={() => dispatch({ type: 'add-share' })}>
        {t.addKit}
      </button>
    </div>
  )
}
