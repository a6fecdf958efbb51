"""Keep the brand-resolution cache honest when account managers edit brands or properties."""

from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from .models import Brand, PlanVersion, PlatformConnection, Property
from .resolution import forget_connections, forget_domain


@receiver(pre_save, sender=Property)
def _remember_old_domain(sender, instance, **kwargs):
    if instance.pk:
        instance._old_domain = (
            Property.objects.filter(pk=instance.pk).values_list("registrable_domain", flat=True).first()
        )


@receiver(post_save, sender=Property)
@receiver(post_delete, sender=Property)
def _forget_property(sender, instance, **kwargs):
    forget_connections()  # they carry their property's host
    forget_domain(instance.registrable_domain)
    old = getattr(instance, "_old_domain", None)
    if old and old != instance.registrable_domain:
        forget_domain(old)


@receiver(post_save, sender=Brand)
@receiver(post_delete, sender=Brand)
def _forget_brand(sender, instance, **kwargs):
    forget_connections()  # they carry the brand's active flag
    for domain in set(
        Property.objects.filter(brand_id=instance.pk).values_list("registrable_domain", flat=True)
    ):
        forget_domain(domain)


@receiver(post_save, sender=PlatformConnection)
@receiver(post_delete, sender=PlatformConnection)
def _forget_connected_brand(sender, instance, **kwargs):
    # An enabled connection hands the brand's orders off: its resolution says so (brands.resolution).
    _forget_brand(sender, Brand(pk=instance.brand_id))


@receiver(post_save, sender=PlanVersion)
def _forget_planned_brand(sender, instance, **kwargs):
    # The brand's resolution carries its plan's versions (brands.resolution.BrandInfo.plans).
    _forget_brand(sender, Brand(pk=instance.brand_id))
