"""gunicorn's settings for production serving, in one place: docs/operations.md runs it as
`gunicorn -c config/gunicorn.conf.py`, behind nginx (config/nginx.conf), and the serving tests start it
the same way. Override a value on the command line (`-w 8`, `-b 0.0.0.0:8000`), not here.

Threads (gthread): a request waiting on the database (at most DB_WAIT_TIMEOUT_S, config/db/base.py)
holds one thread, not a whole worker. Slow clients never reach a thread: nginx in front reads each
request whole before passing it on, which gunicorn itself cannot do (a thread reading a body blocks
until the body has arrived, however slowly it comes).
"""

import multiprocessing

wsgi_app = "config.wsgi:application"
bind = "127.0.0.1:8000"  # nginx on the same host forwards to it
workers = multiprocessing.cpu_count()
worker_class = "gthread"
threads = 4
# A worker whose main loop stops for this long is restarted; a request's own waits are bounded far below
# it (a database wait, a connect), so only a real hang gets here.
timeout = 30
graceful_timeout = 30
keepalive = 5
control_socket_disable = True  # the runtime control socket is not used; nothing should listen on it
accesslog = None  # the service writes its own JSON line per API request (attribution.middleware)
