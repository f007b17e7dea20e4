// Reads a guardian kit's QR code from a photo or scan, entirely in the window (canvas + jsQR).
import { langOf, text } from '../text'
import { UiError } from './error-text'

const t = text.qrImage
export async function decodeQrFromFile(file: File): Promise<string> {
  let bitmap: ImageBitmap
  try {
    bitmap = await createImageBitmap(file)
  } catch {
    throw new UiError(t.notAnImage(file.name), langOf('qrImage'))
  }
  // Large photos: scale down so decoding stays quick; QR codes survive it.
  const scale = Math.min(1, 1600 / Math.max(bitmap.width, bitmap.height))
  const width = Math.max(1, Math.round(bitmap.width * scale))
  const height = Math.max(1, Math.round(bitmap.height * scale))
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const context = canvas.getContext('2d', { willReadFrequently: true })
  if (!context) throw new UiError(t.noCanvas, langOf('qrImage'))
  context.drawImage(bitmap, 0, 0, width, height)
  const pixels = context.getImageData(0, 0, width, height)
  // Loaded on first use: the decoder is as large as the rest of the UI.
  const { default: jsQR } = await import('jsqr')
  const code = jsQR(pixels.data, width, height, { inversionAttempts: 'attemptBoth' })
  if (!code?.data) {
    throw new UiError(t.noCode(file.name), langOf('qrImage'))
  }
  return code.data
}
