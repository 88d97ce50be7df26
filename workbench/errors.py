"""Mistakes a user can fix. The CLI prints them as one line and exits with code 2."""


class UserError(Exception):
    pass
