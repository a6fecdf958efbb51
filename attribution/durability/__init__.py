"""What the database could not take is not lost: the spool keeps it on local disk (spool) and the
replay runs it later, exactly once, or moves it to the dead letters (replay)."""
