"""The durable floors of `make bench`: the least a service can do to store what this project stores.

`make bench` compares the project with two minimal services doing the same durable work on the same
tables, so that its ratio measures the project's own overhead rather than the machine's speed:

- the Django floor (`bench.floor.settings`, `bench.floor.wsgi`): bare Django + DRF, one APIView per
  endpoint, no middleware, the project's own database settings;
- the plain-WSGI floor (`bench.floor.plain`): a WSGI callable and psycopg, no framework at all.

Both run the statements of `bench.floor.work`; bench/README.md lists them and says how to read them.
"""
