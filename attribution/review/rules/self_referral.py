"""self_referral: the shopper is the creator herself: the order's shopper email hashes to the creator's own
(both hashed as brands.hosts.hash_email does; neither address is kept)."""

from ...models import Rule

RULE = Rule.SELF_REFERRAL


def judge(case, review) -> str | None:
    if case.email_hash and case.creator_email_hash and case.email_hash == case.creator_email_hash:
        return f"the shopper's email is {case.creator_name}'s own (hashed match)"
    return None
