"""disposable_email: the shopper's address is at a throwaway-address domain. Decided on the address before it
was hashed (brands.emails); only the verdict reaches the decision."""

from ...models import Rule

RULE = Rule.DISPOSABLE_EMAIL


def judge(case, review) -> str | None:
    if case.email_disposable:
        return (
            "the shopper's email is at a throwaway-address domain "
            "(on the disposable-email-domains list; the address is not kept)"
        )
    return None
