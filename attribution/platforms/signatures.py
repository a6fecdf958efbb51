"""How a storefront platform signs its deliveries. A scheme checks the signature a delivery carries against
its raw body, in constant time; it names itself in a refusal's WWW-Authenticate header, and gives the shell
pipeline the setup page's test request signs with. A platform module picks its scheme (`Platform.verification`).
"""

import base64
import hmac


class Base64HmacSha256:
    """The base64 of the HMAC-SHA256 of the raw body under the connection's secret (Shopify, WooCommerce)."""

    name = "HMAC-SHA256"
    # Signs $BODY with $SECRET in a shell (attribution.platforms.plugin.SetupRequest).
    shell = 'printf \'%s\' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -binary | base64'

    def sign(self, body: bytes, secret: str) -> str:
        return base64.b64encode(hmac.digest(secret.encode(), body, "sha256")).decode()

    def signs(self, body: bytes, secret: str, given: str) -> bool:
        """Whether `given` is the body's signature under `secret`, compared in constant time."""
        expected = base64.b64encode(hmac.digest(secret.encode(), body, "sha256"))
        return hmac.compare_digest(expected, given.encode("utf-8", "replace"))


BASE64_HMAC_SHA256 = Base64HmacSha256()
