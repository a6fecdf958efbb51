"""The key handover's calls to the site, inside the callback's request: one attempt each, all of them within one
total deadline, each answer's body capped, so a slow or hostile site cannot hold a web worker (docs/threat-model.md,
"Round six", finding 2). The one outbound client (config.lib.outbound) bounds the whole of each call, not each
read; `checking()` gives the handover's calls one budget together and a smaller cap than a sync's pages."""

import contextlib

from config.lib import outbound

from ..apis.errors import PlatformAPIError, PlatformUnavailable
from ..apis.http import capped

CHECK_SECONDS = 10.0  # every call of one handover's check together; WooCommerce waits longer for our answer
BODY_LIMIT = 1024 * 1024  # a page of one order and the site's /wp-json/ index are a few KB


def no_retry(_seconds: float) -> None:
    """The handover's `sleep`: a throttled or failing site is not waited for; the administrator tries again."""
    raise PlatformUnavailable("the site answered with an error; the check is not retried")


@contextlib.contextmanager
def checking():
    """The calls made in the block share CHECK_SECONDS and read at most BODY_LIMIT of each answer."""
    with outbound.budget(CHECK_SECONDS), capped(BODY_LIMIT):
        yield


def said(exc: PlatformAPIError) -> str:
    """What a failed call of the check tells the site's administrator."""
    if isinstance(exc.__cause__, outbound.DeadlineExceeded):
        return f"the site did not answer within {CHECK_SECONDS:g} s"
    if isinstance(exc.__cause__, outbound.AnswerTooLarge):
        return f"the site's answer is over {BODY_LIMIT // 1024} KB"
    return str(exc)
