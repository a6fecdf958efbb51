"""What the database could not take is not lost: a fault on our side (faults) keeps the event in the
spool on local disk (spool). Its replay (attribution.replay) runs every way in's service, so it sits above
them, outside this package."""
