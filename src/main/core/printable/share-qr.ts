// QR codes carry the same words as the kit, in capitals (QR alphanumeric mode packs them densely).
// Any phone camera shows them as plain words, so a QR is readable without this app.
import QRCode from 'qrcode'
import { type RecoveryEnvelope, wordsFor } from '../../../vault-format'

export function recoveryQrText(envelope: RecoveryEnvelope): string {
  return wordsFor(envelope).join(' ').toUpperCase()
}

/** A self-contained SVG (no scripts, no external references), synchronously. */
export function qrSvg(text: string, opts: { title?: string; sizeMm?: number } = {}): string {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' })
  const { size, data } = qr.modules
  const quiet = 4
  const total = size + 2 * quiet
  let path = ''
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (data[row * size + col]) path += `M${col + quiet} ${row + quiet}h1v1h-1z`
    }
  }
  const dim = opts.sizeMm ? ` width="${opts.sizeMm}mm" height="${opts.sizeMm}mm"` : ''
  const title = opts.title ? `<title>${escapeXml(opts.title)}</title>` : ''
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${total} ${total}"${dim} shape-rendering="crispEdges" role="img">${title}<rect width="${total}" height="${total}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
}

export function shareQrSvg(envelope: RecoveryEnvelope, opts: { sizeMm?: number } = {}): string {
  const title =
    envelope.kind === 'guardian-share'
      ? `Guardian share ${envelope.shareIndex} of ${envelope.shareCount}`
      : 'Owner recovery key'
  return qrSvg(recoveryQrText(envelope), { title, ...opts })
}

export function shareQrPng(envelope: RecoveryEnvelope, scale = 6): Promise<Buffer> {
  return QRCode.toBuffer(recoveryQrText(envelope), {
    errorCorrectionLevel: 'M',
    type: 'png',
    scale,
    margin: 4,
  })
}

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}
