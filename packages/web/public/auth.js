// Fw sign-on hand-off (@fw/web): /auth.html?token=<token>
// Stores {"token": "<token>"} under localStorage `_token`, then opens the admin home `./`.
// Plain ES5 and no inline code, so it runs under a `script-src 'self'` policy in any browser.
(function () {
  'use strict';

  var STORAGE_KEY = '_token';

  // The raw value of the first `token` parameter, URL-decoded with decodeURIComponent.
  // URLSearchParams is not used on purpose: it turns a literal `+` into a space, and a token
  // may contain `+` (tokens never contain spaces). Undefined when absent, empty or undecodable.
  function readToken(search) {
    var query = search.charAt(0) === '?' ? search.slice(1) : search;
    var parts = query.split('&');
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      var eq = part.indexOf('=');
      var name = eq === -1 ? part : part.slice(0, eq);
      if (name !== 'token') continue;
      if (eq === -1) return undefined;
      try {
        var token = decodeURIComponent(part.slice(eq + 1));
        return token === '' ? undefined : token;
      } catch (e) {
        return undefined; // malformed percent-encoding
      }
    }
    return undefined;
  }

  function show(message) {
    var status = document.getElementById('fw-auth-status');
    if (status) status.textContent = message;
    document.title = 'Sign-in failed';
  }

  var token = readToken(window.location.search);
  if (token === undefined) {
    show('This sign-in link carries no valid token. Go back and sign in again.');
    return;
  }
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify({ token: token }));
  } catch (e) {
    show('The browser refused to store the sign-in (local storage is disabled or full).');
    return;
  }
  // replace(), not assign(): the URL with the token does not stay in the history.
  window.location.replace('./');
})();
