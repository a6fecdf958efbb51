"""A TCP proxy a test controls: forward to a server, then cut every connection and refuse new
ones, or black-hole them (accept, forward nothing, close nothing), then restore. Used to take the
database away from the app for real, mid-traffic.

Black-holed data is held, not dropped, and delivered on restore, as TCP retransmits once a route
heals: a statement the app gave up waiting for can still reach the database after it closed its end."""

import socket
import threading


class TcpProxy:
    def __init__(self, target_host: str, target_port: int):
        self.target = (target_host, target_port)
        self.port = None
        self._listener = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._cut = False
        # Set while each direction flows: to the server (statements) and back (answers).
        self._to_server = threading.Event()
        self._to_client = threading.Event()
        self._to_server.set()
        self._to_client.set()

    def start(self) -> "TcpProxy":
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # listener closed by stop()
            if self._cut:
                client.close()  # the database is "down": the client sees the connection drop at once
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, upstream))
            for a, b, flowing in ((client, upstream, self._to_server), (upstream, client, self._to_client)):
                threading.Thread(target=self._pipe, args=(a, b, flowing), daemon=True).start()

    def _pipe(self, source, sink, flowing):
        try:
            while data := source.recv(65536):
                flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self):
        """Drop every open connection and drop each new one at once, until restore()."""
        self._cut = True
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def black_hole(self, *, answers_only: bool = False):
        """Keep every connection open and accept new ones, but carry nothing (with answers_only, carry
        statements to the server and hold its answers: the database works, the app never hears back)."""
        self._to_client.clear()
        if not answers_only:
            self._to_server.clear()

    def restore(self):
        self._cut = False
        self._to_server.set()
        self._to_client.set()

    def stop(self):
        self.cut()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
