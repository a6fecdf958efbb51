"""The review alerts (holds overdue, a code leaking, a refund outlier): their rules and facts."""
