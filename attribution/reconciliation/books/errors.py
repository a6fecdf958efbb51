"""The one error of a book that cannot be read as a whole."""


class BookError(Exception):
    """The file as a whole cannot be read: answered 400 (413 for a limit), and nothing is stored. `header`
    holds the file's column names when its header is what failed (the page offers them to map)."""

    def __init__(self, message: str, *, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status
        self.header: list[str] = []
