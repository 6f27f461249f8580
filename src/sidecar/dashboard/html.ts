/** Markup that is already safe: interpolated into `html` as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[]

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return ''
  if (part instanceof SafeHtml) return part.value
  if (Array.isArray(part)) return part.map(render).join('')
  return escapeHtml(String(part))
}

/**
 * A template tag that escapes every interpolated value unless it is SafeHtml (another `html` result), so bank
 * data (counterparty names, references) can never become markup. Arrays are joined; null, undefined and false
 * render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!
  })
  return new SafeHtml(out)
}

/** Trusted markup, such as an SVG built from escaped parts. */
export function raw(value: string): SafeHtml {
  return new SafeHtml(value)
}
