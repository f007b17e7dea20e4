import { type FormEvent, useId, useState } from 'react'
import type { PersonRequest } from '../../shared/api'
import { PersonSchema } from '../../shared/ipc/contract'
import { text } from '../text'

const t = text.personForm

type Field = 'name' | 'email' | 'walletAddress'

/** Name, e-mail and optional wallet address, checked inline with the same rules main applies. */
export function PersonForm({
  who,
  disabled,
  disabledReason,
  submitLabel,
  onSubmit,
}: {
  who: string
  disabled: boolean
  disabledReason?: string | null
  submitLabel: string
  onSubmit(person: PersonRequest): Promise<boolean>
}) {
  const ids = { name: useId(), email: useId(), wallet: useId() }
  const [values, setValues] = useState({ name: '', email: '', walletAddress: '' })
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const candidate = {
      name: values.name,
      email: values.email.trim(),
      ...(values.walletAddress.trim() ? { walletAddress: values.walletAddress.trim() } : {}),
    }
    const parsed = PersonSchema.safeParse(candidate)
    if (!parsed.success) {
      const next: Partial<Record<Field, string>> = {}
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as Field
        next[field] ??= issue.message
      }
      setErrors(next)
      return
    }
    setErrors({})
    setBusy(true)
    try {
      const submitted = values
      // Clear only what was saved: someone already typing the next person must not lose it.
      if (await onSubmit(parsed.data)) {
        setValues((current) => ({
          name: current.name === submitted.name ? '' : current.name,
          email: current.email === submitted.email ? '' : current.email,
          walletAddress: current.walletAddress === submitted.walletAddress ? '' : current.walletAddress,
        }))
      }
    } finally {
      setBusy(false)
    }
  }

  const field = (
    key: Field,
    id: string,
    label: string,
    type: string,
    extra?: { placeholder?: string; optional?: boolean },
  ) => (
    <div className="field">
      <label htmlFor={id}>
        {label}
        {extra?.optional && <span className="muted">{t.optional}</span>}
      </label>
      <input
        id={id}
        type={type}
        value={values[key]}
        placeholder={extra?.placeholder}
        disabled={disabled}
        aria-invalid={errors[key] ? true : undefined}
        aria-describedby={errors[key] ? `${id}-error` : undefined}
        onChange={(e) => setValues((v) => ({ ...v, [key]: e.target.value }))}
      />
      {errors[key] && (
        <span id={`${id}-error`} className="field-error">
          {errors[key]}
        </span>
      )}
    </div>
  )

  return (
    <form className="person-form" onSubmit={submit} noValidate aria-label={t.add(who)}>
      {field('name', ids.name, t.name, 'text')}
      {field('email', ids.email, t.email, 'email', { placeholder: t.emailPlaceholder })}
      {field('walletAddress', ids.wallet, t.wallet, 'text', {
        placeholder: t.walletPlaceholder,
        optional: true,
      })}
      <button
        type="submit"
        className="button"
        disabled={disabled || busy}
        title={disabledReason ?? undefined}
      >
        {busy ? t.adding : submitLabel}
      </button>
    </form>
  )
}
