"""The sample policies as issued (policies/issued/): the claims on them and the words their
agents quote, from the form and from the endorsements that changed it."""

from __future__ import annotations

from tests.support.paths import ROOT

INBOX = ROOT / "claims" / "inbox"
# C-1053: a 14-year-old washing machine's hose split on HM-25-00417, where HM-E-07 has replaced
# 4.2(b) since the policy began; C-1054: a hot tub's water after HM-E-09 added exclusion 7.12;
# C-2005: a collision while logged on to a ride-share app after MA-E-12 added II.B.8 mid-term.
WASHER_CLAIM = INBOX / "C-1053.json"
WASHER_NOTE = "C-1053-plumber.txt"
HOT_TUB_CLAIM = INBOX / "C-1054.json"
RIDE_SHARE_CLAIM = INBOX / "C-2005.json"
RIDE_SHARE_ESTIMATE = "C-2005-estimate.txt"

# 4.2(b) as the form prints it: words HM-E-07's replacement no longer has.
FORM_WATER = "from within a plumbing, heating or air conditioning system or a household appliance"
# 4.2(b) as HM-E-07 replaced it: the appliance must be less than 10 years old.
AMENDED_WATER = "from a household appliance that was less than 10 years old at the time of the loss"
# Words both wordings share.
EITHER_WATER = "sudden and accidental discharge of water or steam"
# 7.12, added to section 7 by HM-E-09 from 2025-07-01.
HOT_TUB_EXCLUSION = "caused by water escaping from one, however caused"
# 4.2(a), which no endorsement changes.
BURST_PIPE = "a sudden burst of a pipe, tank or cistern forming part of the plumbing system"
# Section II.B.8, added by MA-E-12 from 2025-09-01.
RIDE_SHARE_CLAUSE = "Section II.B.8"
RIDE_SHARE_EXCLUSION = "while it is logged on to a transportation network platform as a driver"
COLLISION_CLAUSE = "Section II.A.2"
COLLISION_COVER = "caused by the covered auto’s collision with another object"
