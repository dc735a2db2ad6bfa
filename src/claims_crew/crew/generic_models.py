"""Where pipeline.py still imports share_generic_models from: the code is in
crew/workarounds/generic_models.py."""

from claims_crew.crew.workarounds.generic_models import share_generic_models

__all__ = ["share_generic_models"]
