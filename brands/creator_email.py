"""A creator's own address, as account managers enter it in the admin: kept only as its hash
(brands.hosts.hash_email), as shoppers' are, for the self_referral review rule (docs/review.md)."""

from django import forms

from .hosts import hash_email
from .models import Creator


class CreatorForm(forms.ModelForm):
    email = forms.EmailField(
        required=False,
        help_text="Her own address, optional: kept only as its hash, so an order she places herself is held "
        "for review. Leave empty to keep the one on file; tick 'forget' to remove it.",
    )
    forget_email = forms.BooleanField(required=False, label="Forget her email")

    class Meta:
        model = Creator
        fields = ["brand", "name", "is_active"]

    def save(self, commit=True):
        creator = super().save(commit=False)
        if self.cleaned_data.get("forget_email"):
            creator.email_hash = ""
        elif self.cleaned_data.get("email"):
            creator.email_hash = hash_email(self.cleaned_data["email"])
        if commit:
            creator.save()
        return creator
