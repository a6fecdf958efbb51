"""Approving the shops brand users claim on their setup pages (the admin's "Approve" action): anyone may type any
shop's domain there, so two brands may claim one shop. Approval never picks between them by the list's order:
competing claims selected together are refused, and each message names the claim's brand. The admin's list
flags a shop claimed by more than one brand (`with_claims`, `claimed_by`)."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Count, IntegerField, OuterRef, Subquery

from .models import PlatformConnection


@dataclass
class Approval:
    approved: list[PlatformConnection] = field(default_factory=list)
    competing: list[list[PlatformConnection]] = field(
        default_factory=list
    )  # one shop's claims, selected together
    taken: list[tuple[PlatformConnection, PlatformConnection | None]] = field(
        default_factory=list
    )  # and its holder

    def messages(self) -> list[tuple[bool, str]]:
        """(success, sentence) for the admin's messages."""
        said = []
        if self.approved:
            said.append((True, f"Approved: {'; '.join(named(c) for c in self.approved)}."))
        for claims in self.competing:
            brands = ", ".join(c.brand.name for c in claims)
            said.append(
                (
                    False,
                    f"Not approved: {claims[0]} is claimed by more than one brand ({brands}). Approve the rightful "
                    "brand's claim alone, then remove the others.",
                )
            )
        if self.taken:
            shops = "; ".join(
                f"{named(c)} (approved for {holder.brand.name if holder else 'another brand'})"
                for c, holder in self.taken
            )
            said.append(
                (
                    False,
                    f"Not approved, the shop is already another approved connection's: {shops}. "
                    "Remove the wrong claim first.",
                )
            )
        return said


def named(connection: PlatformConnection) -> str:
    return f"{connection} for {connection.brand.name}"


def approve(connections: Iterable[PlatformConnection], *, at) -> Approval:
    """Approve each pending connection of `connections` (read with their brands) whose shop no other selected
    claim competes for; the database refuses one whose shop is already approved for a brand."""
    by_shop = defaultdict(list)
    for connection in connections:
        if connection.approved_at is None:
            by_shop[(connection.platform, connection.shop_domain)].append(connection)
    approval = Approval()
    for claims in by_shop.values():
        if len(claims) > 1:
            approval.competing.append(sorted(claims, key=lambda c: c.pk))
            continue
        connection = claims[0]
        connection.approved_at = at
        try:
            with transaction.atomic():
                connection.save(update_fields=["approved_at"])
        except IntegrityError:  # platform_connection_active_shop_unique: another brand has the shop
            connection.approved_at = None
            approval.taken.append((connection, _holder(connection)))
        else:
            approval.approved.append(connection)
    return approval


def _holder(connection: PlatformConnection) -> PlatformConnection | None:
    return (
        PlatformConnection.objects.filter(
            platform=connection.platform, shop_domain=connection.shop_domain, approved_at__isnull=False
        )
        .select_related("brand")
        .first()
    )


def with_claims(queryset):
    """`queryset` with `claims`: how many connections, pending or approved, name each row's shop."""
    # platform_connection_brand_shop_unique and the pending index: the few connections of one shop.
    same_shop = (
        PlatformConnection.objects.filter(platform=OuterRef("platform"), shop_domain=OuterRef("shop_domain"))
        .order_by()
        .values("platform")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return queryset.annotate(claims=Subquery(same_shop, output_field=IntegerField()))


def claimed_by(connection: PlatformConnection) -> str:
    """'2 brands claim this shop: Acme, Globex' for a contested shop (read only for those); empty otherwise."""
    if (getattr(connection, "claims", None) or 0) < 2:
        return ""
    brands = (
        PlatformConnection.objects.filter(platform=connection.platform, shop_domain=connection.shop_domain)
        .order_by("pk")
        .values_list("brand__name", flat=True)
    )
    return f"{connection.claims} brands claim this shop: {', '.join(brands)}"
