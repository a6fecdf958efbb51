"""Whether a delivery for a shop no approved connection has comes from a claim waiting for approval: only a
delivery signed with that claim's secret (the shop itself, or the brand that typed the secret) is told that its
connection waits; anyone else is answered as for an unknown shop, so the answers never tell which shops are being
onboarded (docs/threat-model.md, "The platforms' webhooks")."""

from brands.resolution import pending_connections
from brands.sealing import UnreadableSecret

from .platform import Platform


def signed_by_a_waiting_claim(platform: Platform, request, body: bytes, shop: str, *, now) -> bool:
    given = request.META.get(platform.signature_header, "").strip()
    if not given:
        return False
    for connection in pending_connections(platform.name, shop):
        try:
            if any(platform.signs(body, s, given) for s in connection.signing_secrets(now=now)):
                return True
        except UnreadableSecret:
            continue
    return False
