"""Mistakes a user can fix. The CLI prints them as one line and exits with code 2."""


class UserError(Exception):
    pass


class Interrupted(UserError):
    """Ctrl-C stopped the work: one line saying what was kept and how to go on, and exit code 130
    as a shell expects of an interrupt (exit 2 read as "a mistake in the file or the data" to a
    cron job or a batch's caller)."""
