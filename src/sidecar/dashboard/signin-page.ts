import { html, type SafeHtml } from './html.js'

/**
 * The sign-in form: KIT_API_TOKEN (or the token `bankrec start` printed) or a user's token opens a session
 * cookie; `refusal` says why the last try was refused.
 */
export function renderSignIn(next: string, refusal: string | null): SafeHtml {
  return html`<section class="signin wide">
    <h2>Sign in</h2>
    <p>
      Paste your token (<code>bankrec users add</code> printed it), the API token <code>KIT_API_TOKEN</code>,
      or the one <code>bankrec start</code> printed in sandbox mode.
    </p>
    ${refusal && html`<p class="notice error">${refusal}</p>`}
    <form id="signin-form" method="post" action="/dashboard/login">
      <input type="hidden" name="next" value="${next}" />
      <input
        name="token"
        type="password"
        placeholder="API token"
        autocomplete="current-password"
        aria-label="API token"
        required
        autofocus
      />
      <button type="submit" class="primary">Sign in</button>
    </form>
  </section>`
}
