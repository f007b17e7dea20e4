// The small HTML pages behind links in e-mails (guardian answers and claims, the one-step check-in): one
// layout, the headers that keep other sites from framing or posting to them, and the guessing limit.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { ServiceContext } from './context'
import { type PageText, pageText } from './page-text'
import type { AuthFailureLimiter } from './rate-limit'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )

/** The catalogue for this request's Accept-Language. */
export const textFor = (request: FastifyRequest) => pageText(request.headers['accept-language'])

export function sendPage(
  reply: FastifyReply,
  text: PageText,
  status: number,
  title: string,
  paragraphs: string[],
  form?: { label: string; field?: { name: string; label: string; value?: string } },
) {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')
  // A field is one short line of text (the kit check's code): no autocomplete or spelling help to keep it.
  const field = form?.field
    ? `<label>${escapeHtml(form.field.label)}<br><input name="${escapeHtml(form.field.name)}" value="${escapeHtml(form.field.value ?? '')}" required maxlength="40" autocomplete="off" autocapitalize="characters" spellcheck="false"></label>`
    : ''
  const button = form
    ? `<form method="post">${field}<button type="submit">${escapeHtml(form.label)}</button></form>`
    : ''
  return (
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      // frame-ancestors / X-Frame-Options: no other site may frame the page and trick someone into pressing
      // its button (clickjacking an accept, a release claim or a check-in).
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      )
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .header('content-language', text.lang)
      .header('vary', 'Accept-Language')
      .send(`<!doctype html>
<html lang="${text.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2430}
label{display:block}
input{display:block;font:1.2rem/1.4 ui-monospace,monospace;letter-spacing:.08em;padding:.4rem .6rem;margin:.3rem 0 1rem;width:100%;max-width:14rem;box-sizing:border-box}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2d5be3;color:#fff;cursor:pointer}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
${button}
</body></html>`)
  )
}

/**
 * The answer to a link whose token matches nothing: counted as a failed authentication, and past the
 * address's limit a 429 page with Retry-After instead of `notFound`. Tokens are looked up first, as API keys
 * are, so a real link is never refused for other clients' failures (on loopback every local program shares
 * one address).
 */
export async function answerUnknownToken(
  request: FastifyRequest,
  reply: FastifyReply,
  authFailures: AuthFailureLimiter | undefined,
  notFound: () => FastifyReply,
): Promise<FastifyReply> {
  const refusal = await authFailures?.recordFailure(request.ip)
  if (!refusal) return notFound()
  const { text } = textFor(request)
  reply.header('retry-after', String(refusal.retryAfterSeconds))
  return sendPage(reply, text, 429, text.tooManyAttemptsTitle, [
    text.tooManyAttempts(refusal.limit, refusal.retryAfterSeconds),
  ])
}

/**
 * A POST whose Origin is another site's. The token in the path is the credential, so a forged form needs it
 * anyway; this refuses one that has it (a leaked link) when sent from elsewhere. Browsers send `Origin: null`
 * for a page with `Referrer-Policy: no-referrer`, which is ours, so null and a missing Origin pass.
 */
export function refuseForeignOrigin(ctx: ServiceContext): onRequestHookHandler {
  return (request, reply, done) => {
    const origin = request.headers.origin
    if (origin === undefined || origin === 'null') return done()
    const sent = URL.parse(origin)
    if (sent && (sent.origin === URL.parse(ctx.publicUrl())?.origin || sent.host === request.host)) {
      return done()
    }
    const { text } = textFor(request)
    sendPage(reply, text, 403, text.foreignOriginTitle, [text.foreignOrigin])
  }
}
