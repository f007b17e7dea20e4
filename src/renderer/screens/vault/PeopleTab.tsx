// What the Guardians and Heirs tabs share: the list of people with a confirmed Remove each, and the
// add form. Each tab brings its own columns, notices and calls.
import { type ReactNode, useState } from 'react'
import type { PersonRequest } from '../../../shared/api'
import { isolateName, revealControls } from '../../../shared/untrusted-text'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorNotice } from '../../components/ErrorNotice'
import { PersonForm } from '../../components/PersonForm'
import { ReadOnlyNote } from '../../components/ReadOnlyNote'
import { EmailAddress, UntrustedName } from '../../components/UntrustedName'
import type { Action } from '../../components/use-action'
import { useWriteAccess } from '../../stores/connection-store'

/** The words both tabs say in the same places (text.guardians, text.heirs). */
export interface PeopleText {
  title: string
  count(n: number, max: number): string
  notListed: string
  none: string
  name: string
  email: string
  actions: string
  remove: string
  removeLabel(name: string): string
  addTitle: string
  who: string
  add: string
  removeTitle(name: string): string
  removeConfirm: string
}

/** A column between E-mail and Remove. */
export interface PeopleColumn<P> {
  header: string
  cell(person: P): ReactNode
}

interface Person {
  id: string
  name: string
  email: string
}

/** One action at a time in a people tab (add, remove, the tab's own), with one place for its failure. */
export type TabAction = Action<[work: () => Promise<unknown>]>

export function PeopleTab<P extends Person>({
  t,
  countTestId,
  max,
  note,
  people,
  listed,
  onReload,
  columns,
  stacksWhenNarrow = false,
  beforeList,
  afterList,
  fullNote,
  beforeForm,
  writable,
  action,
  onAdd,
  onRemove,
  removeNote,
  children,
}: {
  t: PeopleText
  countTestId: string
  /** The most people the vault can have; at it the form gives way to fullNote. */
  max: number
  note: string
  people: P[]
  /** How the last read went: false fromService when the service keeps no list; a failed read's error. */
  listed: { fromService?: boolean; error?: unknown } | undefined
  onReload(): void
  columns: PeopleColumn<P>[]
  /** At the minimum window width each person becomes a block with Remove beside it (styles.css .people-table). */
  stacksWhenNarrow?: boolean
  beforeList?: ReactNode
  afterList?: ReactNode
  fullNote: ReactNode
  beforeForm?: ReactNode
  writable: boolean
  /** Runs adding and removing; its failure is shown under the form. The tab owns it, as it may fail at things of its own too. */
  action: TabAction
  /** Resolves once added (the form clears then; the list may still refresh behind it); throws to keep the form. */
  onAdd(person: PersonRequest): Promise<void>
  onRemove(id: string): Promise<void>
  removeNote(name: string): ReactNode
  /** Dialogs of the tab's own. */
  children?: ReactNode
}) {
  const { reason } = useWriteAccess()
  const [removing, setRemoving] = useState<{ id: string; name: string }>()
  const { busy, error, run } = action
  const full = people.length >= max

  const add = (person: PersonRequest) => run(() => onAdd(person))

  const remove = async () => {
    if (!removing) return
    await run(() => onRemove(removing.id))
    setRemoving(undefined)
  }

  const table = (
    <table className={stacksWhenNarrow ? 'table people-table' : 'table'}>
      <thead>
        <tr>
          <th scope="col">{t.name}</th>
          <th scope="col">{t.email}</th>
          {columns.map((c) => (
            <th key={c.header} scope="col">
              {c.header}
            </th>
          ))}
          <th scope="col">
            <span className="visually-hidden">{t.actions}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {people.map((p) => (
          <tr key={p.id}>
            <td>
              <UntrustedName name={p.name} />
            </td>
            <td className={stacksWhenNarrow ? 'email-cell' : undefined}>
              <EmailAddress email={p.email} />
            </td>
            {columns.map((c) => (
              <td key={c.header}>{c.cell(p)}</td>
            ))}
            <td>
              <button
                type="button"
                className="button small danger"
                disabled={!writable}
                title={reason ?? undefined}
                onClick={() => setRemoving({ id: p.id, name: p.name })}
                aria-label={t.removeLabel(revealControls(p.name))}
              >
                {t.remove}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )

  return (
    <div>
      <div className="panel">
        <h2>
          {t.title}{' '}
          <span className="count" data-testid={countTestId}>
            {t.count(people.length, max)}
          </span>
        </h2>
        <p className="muted">{note}</p>
        {listed?.fromService === false && <p className="muted small">{t.notListed}</p>}
        {listed?.error !== undefined && <ErrorNotice error={listed.error} onRetry={onReload} />}
        {beforeList}
        {people.length === 0 ? (
          <p>{t.none}</p>
        ) : stacksWhenNarrow ? (
          <div className="table-scroll people-table-box">{table}</div>
        ) : (
          table
        )}
        {afterList}
      </div>

      <div className="panel">
        <h2>{t.addTitle}</h2>
        <ReadOnlyNote />
        {full ? (
          fullNote
        ) : (
          <>
            {beforeForm}
            <PersonForm
              who={t.who}
              submitLabel={t.add}
              disabled={!writable}
              disabledReason={reason}
              onSubmit={add}
            />
          </>
        )}
        {error !== undefined && <ErrorNotice error={error} />}
      </div>

      {removing && (
        <ConfirmDialog
          title={t.removeTitle(isolateName(removing.name))}
          confirmLabel={t.removeConfirm}
          danger
          busy={busy}
          onConfirm={remove}
          onCancel={() => setRemoving(undefined)}
        >
          <p>{removeNote(isolateName(removing.name))}</p>
        </ConfirmDialog>
      )}
      {children}
    </div>
  )
}
