/*
 * sms-order.js: put on the order confirmation (thank-you) page, then call smsOrderConfirmation once:
 *
 *   <script src="https://<attribution service>/static/attribution/sms-order.js"></script>
 *   <script>
 *     smsOrderConfirmation({orderId: "1042", orderAmount: 59.90, currency: "USD", code: "ANA10"});
 *   </script>
 *
 * It posts the order to <attribution service>/api/order_confirmation (the address is taken from this
 * script's own src, so one tag is all a brand pastes) with the click id from the sms_click_id cookie
 * that sms-click.js stored, and page_url = this page. On a 2xx answer the click cookies are cleared,
 * so a later order without a new click is not attributed twice. Returns a Promise of the JSON answer
 * ({success, outcome, message | error}); it rejects only when the service could not be reached.
 *
 * Options: orderId, orderAmount, currency (required); code (the discount code applied to the order),
 * is_returning_customer, test, customer_email, returnWindowClosesAt, domain, page_url (optional);
 * endpoint overrides the address of the order confirmation endpoint.
 * No dependencies, no build step: plain ES2017.
 */
(function () {
  "use strict";

  const OPTIONAL_FIELDS = ["code", "is_returning_customer", "test", "customer_email", "returnWindowClosesAt", "domain"];
  const COOKIES = ["sms_click_id", "sms_click_time", "sms_code"];

  // document.currentScript exists only while this file first runs, so the address is read now.
  const script = document.currentScript;
  const defaultEndpoint = endpointFrom(script && script.src);

  function endpointFrom(src) {
    if (!src) {
      return "";
    }
    const url = new URL(src, location.href);
    const base = url.pathname.replace(/\/static\/attribution\/sms-order\.js$/, "/");
    return url.origin + (base.charAt(base.length - 1) === "/" ? base : "/") + "api/order_confirmation";
  }

  function readCookie(name) {
    const prefix = name + "=";
    const found = document.cookie.split(/;\s*/).filter(function (c) { return c.indexOf(prefix) === 0; })[0];
    if (found === undefined) {
      return null;
    }
    try {
      return decodeURIComponent(found.slice(prefix.length));
    } catch (e) {
      return found.slice(prefix.length);
    }
  }

  // Expire a cookie on the host and on every parent domain: sms-click.js chose the registrable one.
  function clearCookies() {
    const labels = location.hostname.split(".");
    const secure = location.protocol === "https:" ? ";Secure" : "";
    COOKIES.forEach(function (name) {
      const base = name + "=;path=/;max-age=0;SameSite=Lax" + secure;
      document.cookie = base;
      for (let i = 2; i <= labels.length; i++) {
        document.cookie = base + ";domain=" + labels.slice(-i).join(".");
      }
    });
  }

  function smsOrderConfirmation(options) {
    const config = options || {};
    const endpoint = config.endpoint || defaultEndpoint;
    if (!endpoint) {
      return Promise.reject(new Error("smsOrderConfirmation: pass endpoint, the service's /api/order_confirmation URL"));
    }
    const body = {
      orderId: config.orderId,
      orderAmount: config.orderAmount,
      currency: config.currency,
      page_url: config.page_url || location.href,
    };
    const clickId = readCookie("sms_click_id");
    if (clickId) {
      body.clickId = clickId; // exactly as stored (docs/decisions.md, "Field formats")
    }
    OPTIONAL_FIELDS.forEach(function (name) {
      if (config[name] !== undefined && config[name] !== null && config[name] !== "") {
        body[name] = config[name];
      }
    });
    return fetch(endpoint, {
      method: "POST",
      keepalive: true, // the shopper may leave the thank-you page at once
      credentials: "omit",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().catch(function () {
        return { success: false, outcome: "unreadable_answer", error: "HTTP " + response.status };
      }).then(function (answer) {
        if (response.ok) {
          clearCookies();
        }
        return answer;
      });
    });
  }

  window.smsOrderConfirmation = smsOrderConfirmation;
})();
