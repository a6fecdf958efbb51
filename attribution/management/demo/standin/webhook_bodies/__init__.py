"""Orders shaped like the platforms' real webhook bodies (shopify.py, woocommerce.py), and a body as a
platform writes and signs it: what the stand-in's platforms would deliver, for the tests and the bench's traffic.
Import them from the package."""

import base64
import hashlib
import hmac
import json

from .shopify import shopify_order
from .woocommerce import woocommerce_order

__all__ = ["body_of", "shopify_order", "signature", "woocommerce_order"]


def body_of(document) -> bytes:
    """As a platform writes it: compact JSON, UTF-8."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()


def signature(body: bytes, secret: str) -> str:
    """Base64 HMAC-SHA256 of the raw body: what both platforms send."""
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
