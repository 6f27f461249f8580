import { html, type SafeHtml } from './html.js'

/**
 * The sign-in form: KIT_API_TOKEN (or the token `bankrec start` printed) or a user's token opens a session
 * cookie; `refusal` says why the last try was refused. A sign-in link's token (`#token=`) is put into the form
 * by the page's script, which shows whose it is (`#signin-link`) and waits for the button.
 */
export function renderSignIn(next: string, refusal: string | null): SafeHtml {
  return html`<section class="signin wide">
    <h2>Sign in</h2>
    <p>
      Paste your token (<code>bankrec users add</code> printed it), the API token <code>KIT_API_TOKEN</code>,
      or the one <code>bankrec start</code> printed in sandbox mode.
    </p>
    ${refusal && html`<p class="notice error">${refusal}</p>`}
    <p id="signin-link" class="notice" hidden>
      This link signs you in as <b data-holder="name"></b> (<span data-holder="role"></span>). Sign in only if
      you meant to: whoever made the link can see what you do as that user.
    </p>
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
      <button type="submit" class="primary" id="signin-button">Sign in</button>
    </form>
  </section>`
}
