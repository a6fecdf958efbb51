"""What an outbound call can end in besides an answer. Each message names the host, never a credential."""


class OutboundError(Exception):
    """The call got no usable answer."""

    retryable = False


class Refused(OutboundError):
    """The URL, or an address its host resolves to, is not one the service calls: nothing was sent."""


class Unreachable(OutboundError):
    """No answer: the host did not resolve, refused or reset the connection."""

    retryable = True


class BadAnswer(OutboundError):
    """The answer broke HTTP, or came in an encoding the client does not read."""

    retryable = True


class DeadlineExceeded(OutboundError):
    """The whole call (connect, send, answer, body) took longer than its deadline."""


class AnswerTooLarge(OutboundError):
    """The answer's body is over the call's cap; it was read no further."""
