"""code_leak: a code-only order (the code credited the creator; no click of hers did) that looks found
rather than recommended: the platform's order names a referring site on the brand's list of coupon and
deal sites, or the code is flagged by the daily figures because its share of code-only orders jumped far
above its own normal (attribution.review.figures)."""

from brands.hosts import normalize_host, registrable_domain

from ...models import Attribution, Rule

RULE = Rule.CODE_LEAK


def coupon_site(referring_site: str, domains: frozenset) -> str | None:
    """The referring site's host when it (or its registrable domain) is on the list."""
    if not referring_site or not domains:
        return None
    host = normalize_host(referring_site)
    if not host:
        return None
    if host in domains or registrable_domain(host) in domains:
        return host
    return None


def judge(case, review) -> str | None:
    if case.attribution != Attribution.CODE:
        return None
    site = coupon_site(case.referring_site, review.coupon_domains)
    if site is not None:
        return (
            f"code {case.code}: the order came without a click from {case.creator_name}, "
            f"referred by {site}, a coupon or deal site on the brand's list"
        )
    return review.leaking_codes.get(case.code_id)
