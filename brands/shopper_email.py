"""A known shopper's address, as account managers enter it in the admin: kept only as its hash
(brands.hosts.hash_email; docs/decisions.md, "Known shoppers"), as a creator's own is
(brands.creator_email)."""

from django import forms

from .hosts import hash_email
from .models import KnownShopper


class KnownShopperForm(forms.ModelForm):
    """Takes the shopper's email address and keeps only its hash (docs/decisions.md, "Known shoppers")."""

    email = forms.EmailField(required=False, help_text="Hashed on save; the address itself is never stored.")

    class Meta:
        model = KnownShopper
        fields = ["brand", "creator"]

    def clean(self):
        cleaned = super().clean()
        email, brand = cleaned.get("email"), cleaned.get("brand")
        if not self.instance.pk and not email:
            self.add_error("email", "Enter the shopper's email address.")
        # email_hash is not a form field, so the model's unique check skips it: ask here.
        if (
            email
            and brand
            and (
                KnownShopper.objects.filter(brand=brand, email_hash=hash_email(email))
                .exclude(pk=self.instance.pk)
                .exists()
            )
        ):
            self.add_error("email", "This shopper is already registered at this brand.")
        return cleaned

    def save(self, commit=True):
        if self.cleaned_data.get("email"):
            self.instance.email_hash = hash_email(self.cleaned_data["email"])
        return super().save(commit)
