"""The tracking health pages, one package per page or family of pages, each holding its views (views.py), its
reads (queries.py) and its forms (forms.py): overview, events, order, creators, review, reconcile, setup,
alerts, statements, portfolio, account. health/urls.py maps each path to its package's views.

Shared by the pages: access (which brands a user may read: brand_page, staff_page), periods (the overview's
UTC period and the period forms' base), outcomes (each outcome's group and label), concurrent_reads (a page's
independent reads at the same time). No package imports another page's views (pyproject.toml)."""
