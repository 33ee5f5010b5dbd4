"""Questions about ``sample_corpus/acme`` and sentences quoted word for word from its pages.

The loop, backend, verifier, conflict and comparison tests cite these; a quote that stops matching its
page fails every one of them at once, which is the point of keeping them in one place.
"""

from __future__ import annotations

CDN = "Who is our CDN vendor and when does the contract renew?"
CDN_QUOTE = "Our CDN vendor is Fastway, and the contract renews on 2027-03-31"
SCIM_QUOTE = "SCIM user provisioning requires the Enterprise plan"
OFF_TOPIC = "What is the capital of Mongolia?"
URGENT = "How quickly do urgent support tickets get a first response?"
SLA_QUOTE = "Urgent tickets get a first response within 1 hour"
"""The support SLA page's answer."""
STATUS_QUOTE = "Urgent tickets get a first response within 4 hours"
"""The status page's answer, which contradicts the SLA page's."""
