/*
 * sms-click.js: put on every page of the brand's site.
 *
 *   <script src="https://<attribution service>/static/attribution/sms-click.js" async></script>
 *
 * A creator link (/l/<code>) lands the shopper here with ?smsclickid=<click id> (and &smscode=<code>
 * when the link carries a discount code). This script keeps them as first-party cookies for 30 days:
 *   sms_click_id    the click id, exactly as minted; the order snippet sends it as clickId
 *   sms_click_time  when the shopper landed, in milliseconds since the epoch
 *   sms_code        the link's discount code, when it has one, for the checkout to pre-fill
 * on the registrable domain, so www., the apex and a checkout. subdomain all read them, and removes
 * the parameters from the address bar (other parameters and the #fragment stay as they were).
 *
 * On a Shopify storefront (window.Shopify) it also writes the click id into the cart's attributes
 * (POST /cart/update.js, {"attributes": {"sms_click_id": ...}}), once per click and cart: Shopify copies
 * them into the order's note_attributes, so the shop's signed order webhook carries the click even when
 * no thank-you page script runs.
 * No dependencies, no build step: plain ES2017.
 */
(function () {
  "use strict";

  const CLICK_PARAM = "smsclickid";
  const CODE_PARAM = "smscode";
  const MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
  // The service mints "clk_" + 32 hex digits; anything unlike an id is not stored.
  const CLICK_ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

  function decode(text) {
    try {
      return decodeURIComponent(text.replace(/\+/g, " "));
    } catch (e) {
      return null;
    }
  }

  function pairsOf(search) {
    return search.replace(/^\?/, "").split("&").filter(Boolean).map(function (raw) {
      const at = raw.indexOf("=");
      const name = decode(at === -1 ? raw : raw.slice(0, at));
      const value = at === -1 ? "" : decode(raw.slice(at + 1));
      return { raw: raw, name: name, value: value };
    });
  }

  function secureFlag() {
    return location.protocol === "https:" ? ";Secure" : "";
  }

  function writeCookie(name, value, domain, maxAge) {
    document.cookie =
      name + "=" + encodeURIComponent(value) +
      ";path=/;max-age=" + maxAge + ";SameSite=Lax" + secureFlag() +
      (domain ? ";domain=" + domain : "");
  }

  function hasCookie(name, value) {
    return document.cookie.split(/;\s*/).indexOf(name + "=" + value) !== -1;
  }

  // The shortest suffix of the host that accepts a cookie is its registrable domain: browsers refuse
  // cookies on public suffixes (com, co.uk, myshopify.com), so no copy of the Public Suffix List is needed.
  function registrableDomain(host) {
    if (!host || host.indexOf(".") === -1 || /^[\d.]+$/.test(host) || host.indexOf(":") !== -1) {
      return ""; // a single label or an IP address: a host-only cookie is all there is
    }
    const labels = host.split(".");
    const probe = "sms_domain_probe";
    const token = Math.random().toString(36).slice(2);
    for (let i = 2; i <= labels.length; i++) {
      const candidate = labels.slice(-i).join(".");
      writeCookie(probe, token, candidate, 60);
      if (hasCookie(probe, token)) {
        writeCookie(probe, "", candidate, 0);
        return candidate;
      }
    }
    return "";
  }

  function capture() {
    const pairs = pairsOf(location.search);
    const click = pairs.filter(function (p) { return p.name === CLICK_PARAM; }).pop();
    if (!click) {
      return;
    }
    const code = pairs.filter(function (p) { return p.name === CODE_PARAM; }).pop();
    if (click.value && CLICK_ID_SHAPE.test(click.value)) {
      const domain = registrableDomain(location.hostname);
      writeCookie("sms_click_id", click.value, domain, MAX_AGE_SECONDS);
      writeCookie("sms_click_time", String(Date.now()), domain, MAX_AGE_SECONDS);
      // A new click replaces the last one whole: a code from an older link must not outlive it.
      writeCookie("sms_code", code && code.value ? code.value : "", domain, code && code.value ? MAX_AGE_SECONDS : 0);
    }
    if (window.history && typeof window.history.replaceState === "function") {
      const kept = pairs.filter(function (p) { return p.name !== CLICK_PARAM && p.name !== CODE_PARAM; });
      const search = kept.length ? "?" + kept.map(function (p) { return p.raw; }).join("&") : "";
      try {
        window.history.replaceState(window.history.state, "", location.pathname + search + location.hash);
      } catch (e) {
        // Sandboxed frames may refuse; the cookies are stored all the same.
      }
    }
  }

  function cookieValue(name) {
    const found = document.cookie.split(/;\s*/).filter(function (c) { return c.indexOf(name + "=") === 0; })[0];
    return found ? decode(found.slice(name.length + 1)) : "";
  }

  const CART_MARKER = "sms_cart_click";

  function shareWithShopifyCart() {
    const shopify = window.Shopify;
    const click = cookieValue("sms_click_id");
    if (!shopify || !shopify.shop || !click || typeof window.fetch !== "function") {
      return;
    }
    // Once per click and cart: a new cart (after an order) gets the click again.
    const marker = click + "|" + cookieValue("cart");
    try {
      if (window.sessionStorage.getItem(CART_MARKER) === marker) {
        return;
      }
    } catch (e) {
      // Storage refused (a private mode): the cart is simply written on every page.
    }
    const root = (shopify.routes && shopify.routes.root) || "/";
    window.fetch(root + "cart/update.js", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify({ attributes: { sms_click_id: click } }),
    }).then(function (response) {
      if (response.ok) {
        try {
          window.sessionStorage.setItem(CART_MARKER, click + "|" + cookieValue("cart"));
        } catch (e) {
          // As above.
        }
      }
    }).catch(function () {
      // The next page tries again.
    });
  }

  try {
    capture();
  } catch (e) {
    // Never break the brand's page over attribution.
  }
  try {
    if (window.Shopify) {
      shareWithShopifyCart();
    } else {
      // Shopify's own head script defines window.Shopify; a script loaded async may run before it.
      window.addEventListener("load", function () {
        try { shareWithShopifyCart(); } catch (e) { /* as above */ }
      });
    }
  } catch (e) {
    // As above.
  }
})();
