"""Notifications about incidents: queued, claimed, retried (notifications), what one says (messages), the two
senders (emails, webhooks; each try an attempt) and the guarded HTTP of the webhooks (outbound)."""
