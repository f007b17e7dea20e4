import { revealControls, revealSentence } from '../../shared/untrusted-text'

/**
 * A name from outside the app (a file, a service, a kit): its hidden and reordering characters shown
 * as "[U+202E]" markers, in a <bdi> so its direction stays inside it and never turns the line over.
 */
export function UntrustedName({
  name,
  className,
  title,
}: {
  name: string
  className?: string
  title?: boolean
}) {
  const shown = revealControls(name)
  return (
    <bdi dir="auto" className={className} title={title ? shown : undefined} data-untrusted="">
      {shown}
    </bdi>
  )
}

/**
 * A sentence another part of the app wrote around such names (an upload's error, a notice): hidden
 * characters shown, the app's own isolates round the names kept, and the whole isolated from what
 * sits beside it on the page.
 */
export function UntrustedSentence({ text, className }: { text: string; className?: string }) {
  return (
    <bdi dir="ltr" className={className}>
      {revealSentence(text)}
    </bdi>
  )
}

/**
 * An e-mail address from outside the app, shown like a name, that a narrow column breaks only where a
 * reader expects: after the @ and before a dot ("carol@ / example.com"), never inside a word.
 */
export function EmailAddress({ email }: { email: string }) {
  const shown = revealControls(email)
  const at = shown.lastIndexOf('@')
  const pieces = (at < 0 ? [shown] : [shown.slice(0, at + 1), shown.slice(at + 1)]).flatMap((piece, i) =>
    i === 0 ? [piece] : piece.split(/(?=\.)/),
  )
  return (
    <bdi dir="ltr" className="email-address" data-untrusted="">
      {pieces.map((piece, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one address, in order
        <span key={i}>
          {i > 0 && <wbr />}
          {piece}
        </span>
      ))}
    </bdi>
  )
}
