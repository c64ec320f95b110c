"""The report form: a reason and a note, read and refused as every form of the site is."""

from django import forms

from fairplay.models import Report

CHOOSE_A_REASON = "Choose a reason for the report."


class ReportForm(forms.Form):
    """What `do_report` takes, checked first by the form, whose refusals stand by their fields
    (the action checks the same again, and refuses what only it knows: its refusals are the
    form's own errors)."""

    reason = forms.ChoiceField(
        label="Why",
        choices=Report.Reason.choices,
        error_messages={"required": CHOOSE_A_REASON, "invalid_choice": CHOOSE_A_REASON},
    )
    note = forms.CharField(
        label="Anything a reviewer should know (optional)",
        required=False,
        widget=forms.Textarea(attrs={"maxlength": 300, "rows": 3}),
        error_messages={"null_characters_not_allowed": "A note cannot hold a null character."},
    )

    def __init__(self, *args, **kwargs):
        # The ids the page has always had (report-reason, report-note).
        super().__init__(*args, auto_id="report-%s", **kwargs)
