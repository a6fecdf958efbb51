"""Django's PostgreSQL backend with a connection check that costs no round trip.

With CONN_HEALTH_CHECKS, Django checks a reused connection with `SELECT 1` before the first query of
every request: a round trip and a statement per request, on a path that otherwise makes two. An idle
connection has nothing to read unless the server hung up (it sends its FATAL message or closes the
socket when it restarts or ends the session) so polling the socket, without waiting, tells the same
story for a restarted database. A connection that broke during a request is still checked with a real
query by Django (`errors_occurred`), and a network that drops packets silently is caught by the
statement timeout, as before.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self):
        if self.connection is None or not self.health_check_enabled or self.health_check_done:
            return
        if self._server_hung_up():
            # Something to read on an idle connection: confirm with Django's real check, which closes it.
            return super().close_if_health_check_failed()
        self.health_check_done = True

    def _server_hung_up(self) -> bool:
        if self.connection.closed:
            return True
        poller = select.poll()
        poller.register(self.connection.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
