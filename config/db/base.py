"""Django's PostgreSQL backend with every wait for the server bounded on the client side, and a
connection check that costs no round trip.

Bounded waits. PostgreSQL's statement_timeout is enforced by the server: when the network stops
carrying packets (a black-holed route, a hung proxy) it never fires, and a worker would wait in a
query until the process is killed, its request unanswered and never spooled. psycopg runs every
exchange with the server (a statement, fetching its rows, COMMIT, ROLLBACK) through one method,
`Connection.wait`, which takes a timeout; this connection class gives it one by default
(OPTIONS["wait_timeout"], seconds). When it expires the connection is closed, since nobody knows
where in the exchange it stopped, and the query fails with OperationalError: the event views answer
insert_failed and spool the event. Connecting is bounded by psycopg's connect_timeout.

Connection check. With CONN_HEALTH_CHECKS, Django checks a reused connection with `SELECT 1` before
the first query of every request: a round trip and a statement per request, on a path that otherwise
makes two. An idle connection has nothing to read unless the server hung up (it sends its FATAL
message or closes the socket when it restarts or ends the session) so polling the socket, without
waiting, tells the same story for a restarted database. A connection that broke during a request is
still checked with a real query by Django (`errors_occurred`); a network that drops packets silently is
caught by the bounded waits.
"""

import select
import types

import psycopg
from django.db.backends.postgresql import base


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that waits at most `wait_timeout` seconds for any answer of the server."""

    wait_timeout: float | None = None

    def wait(self, gen, *args, timeout=None, **kwargs):
        limit = self.wait_timeout if timeout is None else timeout
        try:
            return super().wait(gen, *args, timeout=limit, **kwargs)
        except psycopg.errors._WaitTimeout:  # noqa: SLF001  (psycopg's own signal that the timeout expired)
            if timeout is not None:
                raise  # a caller's own timeout (LISTEN/NOTIFY): its business
            self.pgconn.finish()  # mid-exchange: the connection cannot be used again
            raise psycopg.OperationalError(
                f"PostgreSQL did not answer within {limit:g} s; connection closed"
            ) from None


# psycopg as Django's backend uses it (self.Database), whose connect() makes BoundedConnections.
_driver = types.SimpleNamespace(**vars(psycopg))
_driver.connect = BoundedConnection.connect


class DatabaseWrapper(base.DatabaseWrapper):
    Database = _driver

    def get_connection_params(self):
        params = super().get_connection_params()
        self._wait_timeout = params.pop("wait_timeout", None)
        return params

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        connection.wait_timeout = self._wait_timeout
        return connection

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
