"""WooCommerce connections keyed by their site's host and path (brands.hosts.site_key), not the host alone: a
WordPress site can live under a path, and two sites of one host were one shop. A connection made by key
handover knows its site's address; a typed-in one keeps its host (its site is at the root)."""

from django.db import IntegrityError, migrations, models, transaction

from brands.hosts import site_key


def key_by_site(apps, schema_editor):
    PlatformConnection = apps.get_model("brands", "PlatformConnection")
    for connection in PlatformConnection.objects.filter(platform="woocommerce").exclude(site_url=""):
        key = site_key(connection.site_url)
        if not key or key == connection.shop_domain:
            continue
        try:
            with transaction.atomic():
                PlatformConnection.objects.filter(pk=connection.pk).update(shop_domain=key)
        except IntegrityError:  # another connection holds the key already: this one keeps its host
            pass


def key_by_host(apps, schema_editor):
    PlatformConnection = apps.get_model("brands", "PlatformConnection")
    for connection in PlatformConnection.objects.filter(platform="woocommerce", shop_domain__contains="/"):
        host = connection.shop_domain.split("/", 1)[0]
        try:
            with transaction.atomic():
                PlatformConnection.objects.filter(pk=connection.pk).update(shop_domain=host)
        except IntegrityError:
            pass


class Migration(migrations.Migration):
    dependencies = [("brands", "0013_privacy_requests_remember_their_bodies")]

    operations = [
        migrations.AlterField(
            model_name="platformconnection",
            name="shop_domain",
            field=models.CharField(
                help_text="Shopify: the shop's name.myshopify.com domain (what Shopify sends as "
                "X-Shopify-Shop-Domain). WooCommerce: the WordPress site's host and path, if it has one "
                "(shop.example/store; its X-WC-Webhook-Source).",
                max_length=253,
            ),
        ),
        migrations.RunPython(key_by_site, key_by_host),
    ]
