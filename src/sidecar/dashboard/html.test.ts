import { describe, expect, it } from 'vitest'
import { escapeHtml, html, raw } from './html.js'

// Called through another name so Prettier leaves the templates' exact whitespace alone.
const tag = html

describe('html', () => {
  it('escapes every interpolated string, so data never becomes markup', () => {
    const name = `<img src=x onerror="alert('x')">&`
    expect(tag`<td>${name}</td>`.value).toBe(
      '<td>&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</td>',
    )
  })

  it('escapes attribute values, so a value cannot close its quotes', () => {
    expect(tag`<input value="${'" autofocus onfocus="x'}">`.value).toBe(
      '<input value="&quot; autofocus onfocus=&quot;x">',
    )
  })

  it('keeps nested html and raw markup as they are, and joins arrays', () => {
    const rows = ['a<', 'b'].map((v) => tag`<li>${v}</li>`)
    expect(tag`<ul>${rows}${raw('<hr>')}</ul>`.value).toBe('<ul><li>a&lt;</li><li>b</li><hr></ul>')
  })

  it('renders null, undefined and false as nothing, and numbers as text', () => {
    expect(tag`${null}${undefined}${false}${0}${12.5}`.value).toBe('012.5')
  })

  it('escapes the five characters that matter and nothing else', () => {
    expect(escapeHtml(`&<>"' é`)).toBe('&amp;&lt;&gt;&quot;&#39; é')
  })
})
