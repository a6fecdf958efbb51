"""Keep the order path's copy of a brand's review (attribution.review.settings_copy) honest when its settings or
its flags change in this process."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from ..models import ReviewFlag, ReviewSettings
from . import settings_copy


@receiver(post_save, sender=ReviewSettings)
@receiver(post_delete, sender=ReviewSettings)
@receiver(post_save, sender=ReviewFlag)
@receiver(post_delete, sender=ReviewFlag)
def _forget_review(sender, instance, **kwargs):
    settings_copy.forget(instance.brand_id)
