"""A brand's order book: which export a CSV file is, and its orders, read one at a time.

- errors: BookError, the file as a whole cannot be read;
- columns: the header: which format it is, where each field is, the brand's column map;
- cells: one cell's reading (amounts by the file's number format, dates, flags, codes, click ids);
- platform_terms: what the storefront platforms write (the click attribute, their order statuses);
- statuses: the status vocabulary each format's column holds;
- reader: the streaming reader, open_book and its Book of BookOrders.
"""
