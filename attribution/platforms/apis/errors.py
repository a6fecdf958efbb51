"""What a call to a platform's API can end in, besides an answer."""


class PlatformAPIError(Exception):
    """The platform refused or could not answer the call (the message says what it answered, never a credential)."""


class CredentialRevoked(PlatformAPIError):
    """The credential no longer opens the shop (HTTP 401/403, GraphQL ACCESS_DENIED): stop, and ask the brand to
    connect the shop again."""


class PlatformUnavailable(PlatformAPIError):
    """The platform kept answering 5xx, throttling or timing out after the bounded retries: try again later."""


class UnreadableAnswer(PlatformAPIError):
    """The platform answered something that is not what its API documents (not JSON, not the shape asked for,
    a list that never ends): nothing of it is acted on."""
