"""gunicorn's settings for production serving, in one place: docs/operations.md runs it as
`gunicorn -c config/gunicorn.conf.py`, behind nginx (config/nginx.conf), and the serving tests start it
the same way. Override a value on the command line (`-w 8`, `-b 0.0.0.0:8000`), not here.

Sync workers, (2 x cores) + 1: slow clients never reach a worker, because nginx in front reads each
request whole before passing it on (which gunicorn itself cannot do: a worker reading a body blocks until
it has arrived, however slowly it comes), and a request waiting on the database holds its worker at most
DB_WAIT_TIMEOUT_S (config/db/base.py). Measured side by side under the same load (docs/performance.md),
gthread workers (one per core x 4 threads, or two per core x 2) served about as many orders but with a
p99 near 70 ms against 47 ms for sync workers: threads of one process wait for each other's Python.
"""

import multiprocessing

from config.serving import REQUEST_LINE_MAX_BYTES

wsgi_app = "config.wsgi:application"
bind = "127.0.0.1:8000"  # nginx on the same host forwards to it
workers = 2 * multiprocessing.cpu_count() + 1
# gunicorn's sync worker, answering a request line over the limit below with the API's JSON 414 instead of
# gunicorn's HTML page (config/serving.py).
worker_class = "config.serving.JsonRefusalSyncWorker"
# The path and query string of one request, as nginx in front allows them (large_client_header_buffers 8k).
limit_request_line = REQUEST_LINE_MAX_BYTES
# A worker whose main loop stops for this long is restarted; a request's own waits are bounded far below
# it (a database wait, a connect), so only a real hang gets here.
timeout = 30
graceful_timeout = 30
keepalive = 5
control_socket_disable = True  # the runtime control socket is not used; nothing should listen on it
accesslog = None  # the service writes its own JSON line per API request (attribution.http.middleware)
