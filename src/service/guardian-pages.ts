// The small HTML pages behind the links in a guardian's invitation e-mail: accept, decline, claim.
// GET shows what the link does with a confirm button (so a mail scanner fetching links changes nothing);
// POST to the same address does it. No API key: the token in the path is the credential.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { SSS_PRESET_SHAPE } from '../shared/api'
import type { ServiceContext } from './context'
import { ApiError } from './errors'
import { answerInvitation, guardianByToken } from './people'
import { AuthFailureLimiter } from './rate-limit'
import { claimRelease } from './release'

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )

function page(
  reply: FastifyReply,
  status: number,
  title: string,
  paragraphs: string[],
  form?: { label: string },
) {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')
  const button = form
    ? `<form method="post"><button type="submit">${escapeHtml(form.label)}</button></form>`
    : ''
  return (
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      // frame-ancestors / X-Frame-Options: no other site may frame the page and trick a guardian into
      // pressing its button (clickjacking an accept or a release claim).
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      )
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2430}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2d5be3;color:#fff;cursor:pointer}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
${button}
</body></html>`)
  )
}

function errorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  authFailures: AuthFailureLimiter | undefined,
) {
  if (error instanceof ApiError) {
    // 404: the token matched no guardian, a failed authentication like a wrong API key.
    if (error.status === 404) authFailures?.recordFailure(request.ip)
    return page(reply, error.status, error.status === 404 ? 'Link not valid' : 'Not possible', [
      error.message,
    ])
  }
  throw error
}

type Action = 'accept' | 'decline' | 'claim'

export function registerGuardianPages(
  app: FastifyInstance,
  ctx: ServiceContext,
  authFailures?: AuthFailureLimiter,
): void {
  // An address that tried too many unknown tokens is refused before the token is looked up.
  const refuseGuessing: onRequestHookHandler = (request, reply, done) => {
    const refusal = authFailures?.refusal(request.ip)
    if (!refusal) return done()
    reply.header('retry-after', String(refusal.retryAfterSeconds))
    page(reply, 429, 'Too many attempts', [
      `${AuthFailureLimiter.message(refusal)}. If you copied the link from your invitation e-mail, check that it is complete.`,
    ])
  }

  app.get<{ Params: { token: string; action: Action } }>(
    '/guardian/:token/:action',
    { onRequest: refuseGuessing },
    async (request, reply) => {
      const { token, action } = request.params
      try {
        const { guardian, vault } = guardianByToken(ctx, token)
        const owner = vault.owner_email
        if (action === 'accept') {
          return page(
            reply,
            200,
            'Become a guardian',
            [
              `${owner} asks you, ${guardian.name}, to be a guardian of their vault. Your status now: ${guardian.status}.`,
              `You will hold one share of the vault key; ${SSS_PRESET_SHAPE[vault.sss_preset].threshold} guardians together can recover it for the heirs.`,
            ],
            { label: 'Accept' },
          )
        }
        if (action === 'decline') {
          return page(
            reply,
            200,
            'Decline the invitation',
            [
              `${owner} asks you, ${guardian.name}, to be a guardian of their vault. Your status now: ${guardian.status}.`,
            ],
            { label: 'Decline' },
          )
        }
        if (action === 'claim') {
          return page(
            reply,
            200,
            'Claim a release',
            [
              `Use this only if ${owner} has died or can no longer act, and their heirs need the vault.`,
              `When ${SSS_PRESET_SHAPE[vault.sss_preset].threshold} guardians have claimed, a release starts. ${owner} is alerted and has 30 days to cancel it.`,
            ],
            { label: 'Claim a release' },
          )
        }
        return page(reply, 404, 'Link not valid', [
          'This guardian link is not valid: it must end in /accept, /decline or /claim.',
        ])
      } catch (error) {
        return errorPage(request, reply, error, authFailures)
      }
    },
  )

  app.post<{ Params: { token: string; action: Action } }>(
    '/guardian/:token/:action',
    { onRequest: refuseGuessing },
    async (request, reply) => {
      const { token, action } = request.params
      try {
        if (action === 'accept' || action === 'decline') {
          const { guardian, vault } = answerInvitation(
            ctx,
            token,
            action === 'accept' ? 'accepted' : 'declined',
          )
          return page(
            reply,
            200,
            action === 'accept' ? 'You are a guardian' : 'Invitation declined',
            action === 'accept'
              ? [
                  `Thank you, ${guardian.name}. ${vault.owner_email} will give you your guardian kit: keep it safe and private.`,
                  'Keep the invitation e-mail: its claim link is how you start a release if it is ever needed.',
                ]
              : [
                  `You declined to be a guardian for ${vault.owner_email}. Nothing more will be asked of you.`,
                ],
          )
        }
        if (action === 'claim') {
          const result = claimRelease(ctx, token)
          if (result.outcome === 'already_releasing') {
            return page(reply, 200, 'A release is already under way', [
              `The vault of ${result.found.vault.owner_email} is already ${result.found.vault.state}. Nothing more is needed from you now.`,
            ])
          }
          if (result.outcome === 'release_started') {
            return page(reply, 200, 'Release started', [
              `${result.claims} guardians have claimed, so the release has started. ${result.found.vault.owner_email} is alerted and can cancel it during the next 30 days; after that the heirs get access.`,
            ])
          }
          return page(reply, 200, 'Claim recorded', [
            `Your claim is recorded: ${result.claims} of the ${result.threshold} guardian claims needed to start a release.`,
          ])
        }
        return page(reply, 404, 'Link not valid', [
          'This guardian link is not valid: it must end in /accept, /decline or /claim.',
        ])
      } catch (error) {
        return errorPage(request, reply, error, authFailures)
      }
    },
  )
}
