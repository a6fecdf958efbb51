"""What the sync tells the layers above it, which it never imports (the layers contract in pyproject.toml):
each connects its receiver in its AppConfig.ready."""

from django.dispatch import Signal

# A run has finished, done or failed, sent once by the call that finished it (orchestration.run_sync), with
# run= (the SyncRun) and now=. health opens and resolves the incidents the run calls for (health/apps.py).
sync_run_finished = Signal()
