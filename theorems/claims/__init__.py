"""The claims catalogue, one module per topic; each defines a list ``CLAIMS``.

To add a claim, copy the pattern of an existing one in the same topic: a
``Claim`` with the evidence its kind requires (``theorems.core.model.REQUIRED_EVIDENCE``),
its dependencies, and a ``NegativeControl`` that swaps one formula of
``ctx.impl`` for a wrong variant. The module list is
``theorems.core.registry.CLAIM_MODULES``.
"""
