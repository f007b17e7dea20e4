import type { Dispatch, FormEvent } from 'react'
import { ErrorNotice } from '../../components/ErrorNotice'
import { UntrustedName } from '../../components/UntrustedName'
import { useAction } from '../../components/use-action'
import { useRecoveryStore } from '../../stores/recovery-store'
import { format, text } from '../../text'
import type { RecoveryEvent, RecoveryState } from './recovery-state'

const t = text.recovery

/** Step 1 from the heir e-mail: the service, the access code and the vault; the files it holds, to see. */
export function ServiceStep({
  state,
  dispatch,
  enough,
}: {
  state: RecoveryState
  dispatch: Dispatch<RecoveryEvent>
  /** Enough kits are in: the files can be opened (else the list says they stay locked). */
  enough: boolean
}) {
  const { serviceUrl, accessToken, vaultId, listing } = state
  const listingFiles = useAction(async () => {
    dispatch({ type: 'listing', listing: undefined })
    const files = await useRecoveryStore.getState().listHeirFiles({
      serviceUrl: serviceUrl.trim(),
      accessToken: accessToken.trim(),
      vaultId: vaultId.trim(),
    })
    dispatch({ type: 'listing', listing: files })
  })
  const showFiles = (event: FormEvent) => {
    event.preventDefault()
    void listingFiles.run()
  }
  const field = (name: 'serviceUrl' | 'accessToken' | 'vaultId', value: string) =>
    dispatch({ type: 'field', field: name, value })

  return (
    <form className="panel" onSubmit={showFiles} aria-labelledby="step-email">
      <h2 id="step-email">{t.emailStep}</h2>
      <p className="muted">{t.emailStepNote}</p>
      <div className="field" style={{ marginBottom: 12 }}>
        <label htmlFor="heir-service">{t.serviceAddress}</label>
        <input
          id="heir-service"
          type="text"
          inputMode="url"
          autoComplete="url"
          value={serviceUrl}
          placeholder={t.serviceAddressPlaceholder}
          spellCheck={false}
          onChange={(e) => field('serviceUrl', e.target.value)}
        />
      </div>
      <div className="field" style={{ marginBottom: 12 }}>
        <label htmlFor="heir-token">{t.accessToken}</label>
        <input
          id="heir-token"
          type="text"
          value={accessToken}
          placeholder={t.accessTokenPlaceholder}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => field('accessToken', e.target.value)}
        />
      </div>
      <div className="field" style={{ marginBottom: 12 }}>
        <label htmlFor="heir-vault">{t.vaultId}</label>
        <input
          id="heir-vault"
          type="text"
          value={vaultId}
          spellCheck={false}
          onChange={(e) => field('vaultId', e.target.value)}
        />
      </div>
      <div className="row">
        <button
          type="submit"
          className="button secondary"
          disabled={listingFiles.busy || !serviceUrl.trim() || !accessToken.trim() || !vaultId.trim()}
        >
          {listingFiles.busy ? t.looking : t.showFiles}
        </button>
        <span className="muted small">
          {serviceUrl.trim() && accessToken.trim() && !vaultId.trim()
            ? t.showFilesNeedsVaultId
            : t.showFilesNote}
        </span>
      </div>
      {listingFiles.error !== undefined && <ErrorNotice error={listingFiles.error} />}
      {listing?.practice && (
        <div className="panel inset" data-testid="heir-files">
          <h3>{t.practiceFiles}</h3>
          <ul className="plain-list file-list">
            {listing.files.map((f) => (
              <li key={f.assetId}>
                <span className="file-name">{f.name}</span>{' '}
                <span className="muted small">{format.bytes(f.plaintextBytes)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {listing && !listing.practice && (
        <div className="panel inset" data-testid="heir-files">
          <h3>
            {t.vaultHolds(
              listing.files.reduce((sum, f) => sum + (f.fileCount ?? 1), 0),
              format.bytes(listing.totalBytes),
            )}
          </h3>
          <ul className="plain-list file-list">
            {listing.files.map((f) => (
              <li key={f.assetId}>
                <UntrustedName name={f.name} className="file-name" />{' '}
                <span className="muted small">
                  {format.bytes(f.plaintextBytes)}
                  {/* The heading counts the owner's files, the rows the encrypted ones: say why they differ. */}
                  {f.fileCount !== undefined && f.fileCount > 1 && ` · ${t.packedFiles(f.fileCount)}`}
                </span>
              </li>
            ))}
          </ul>
          {!enough && <p className="muted small">{t.lockedNote}</p>}
        </div>
      )}
    </form>
  )
}
