"""The minimal-schema floor of `make bench`: bare Django + DRF storing the same facts as the project in
tables of its own that keep nothing but them (bench/floor/minimal/schema.py):

- the order, with its unique key (brand, order id, namespace) and no other index;
- the commission, keyed by its order;
- the outcome row, with one index: brand and time;
- a commission's change (its state move or its new amounts), with no index.

No foreign keys, no partitions, no other index. It runs the same code as the Django floor
(bench/floor/work.py, bench/floor/views.py) with these tables' statements, so the project's ratio to it
measures everything the project's schema and code add to the least durable write of the same facts;
the ratio to the same-schema Django floor measures the code alone.
"""
