"""Lists and headings that real wordings lay out loosely, and the tree the splitter makes of them.

Each text is a small wording in the layout a real policy uses; the test names the clause a line
must open (or must not open) and the kind it must get.
"""

from __future__ import annotations

from claims_crew.policy.segment import Clause, segment


def _by_id(text: str) -> dict[str, Clause]:
    return {c.id: c for c in segment([text])}


def _opening(clauses: dict[str, Clause], words: str) -> Clause:
    return next(
        c
        for c in clauses.values()
        if c.text.lstrip().removeprefix(c.label).strip().startswith(words)
    )


PERSONAL_ACCIDENT = """\
3. PERSONAL ACCIDENT COVERS:
a. Coverage
The Policy shall pay the Insured the percentage of the Sum Insured below.
Table of Benefits Percentage of Sum Insured
1. Accident Death 100%
2. Loss of one eye 50%
b. Special Exclusions applicable to Personal Accident Covers:
The Company shall not be liable to make any payment in respect of the following:
1. Any existing physical disability.
2. Payment of compensation in respect of death or injury of the Insured Person from;
a. intentional self-injury.
b. whilst under the influence of intoxication, liquor or drugs.
3. Any consequential loss.
c. Special Conditions applicable to Personal Accident Covers:
1. In the event of permanent disablement, the Insured will be under obligation:
"""


def test_a_list_resumes_after_a_sub_heading_inside_its_item() -> None:
    clauses = _by_id(PERSONAL_ACCIDENT)
    special = _opening(clauses, "Special Exclusions")
    assert special.parent == "3" and special.kind == "exclusion"
    drunk = _opening(clauses, "whilst under the influence")
    # "b." continues the list inside item 2, which stops mid-sentence at "from;".
    assert drunk.parent == _opening(clauses, "Payment of compensation").id
    assert drunk.kind == "exclusion"
    assert _opening(clauses, "Any consequential loss").parent == special.id
    duty = _opening(clauses, "In the event of permanent disablement")
    assert duty.parent == _opening(clauses, "Special Conditions").id
    assert duty.kind == "condition"


GENERAL_CONDITIONS = """\
5. GENERAL CONDITIONS:
I. CONDITIONS PRECEDENT TO THE CONTRACT:
1. Deductible: The deductible applies to each claim.
2. Disclosure of Information: The policy shall be void on non-disclosure.
II. CONDITIONS APPLICABLE DURING THE CONTRACT
3. Condition Precedent to Admission of Liability:
The terms of the policy must be fulfilled by the Insured Person.
4. Nomination
The Insured is required at the inception of the policy to make a nomination.
"""


def test_numbering_that_runs_on_across_sub_sections_opens_clauses_in_the_new_one() -> None:
    clauses = _by_id(GENERAL_CONDITIONS)
    second = _opening(clauses, "CONDITIONS APPLICABLE DURING")
    assert _opening(clauses, "Condition Precedent to Admission").parent == second.id
    nomination = _opening(clauses, "Nomination")
    assert nomination.parent == second.id and nomination.kind == "other"


BAGGAGE = """\
a. Coverage
We will pay for the loss of checked-in baggage.
b. Specific Conditions applicable to Loss of Baggage:
1. All claims are assessed on the age of the article.
c. Specific Definitions applicable to Loss of Baggage:
a. "Personal Documents" means an identity card or passport.
b. "Personal Effects" means a mobile, laptop or tablet.
d. Specific Claims Provisions applicable to Loss of Baggage:
In the event of a claim the Insured Person must give notice.
e. Special Exclusions applicable to Loss of Baggage:
1. a claim involving animals.
"""


def test_a_list_inside_an_item_ending_with_a_colon_and_the_outer_list_goes_on() -> None:
    clauses = _by_id(BAGGAGE)
    definitions = _opening(clauses, "Specific Definitions")
    effects = _opening(clauses, '"Personal Effects" means')
    assert effects.parent == definitions.id and effects.kind == "definition"
    provisions = _opening(clauses, "Specific Claims Provisions")
    assert provisions.parent == definitions.parent
    animals = _opening(clauses, "a claim involving animals")
    assert animals.parent == _opening(clauses, "Special Exclusions").id
    assert animals.kind == "exclusion"


ENDORSEMENTS = """\
7. Any exclusion mentioned in the General Exclusions section of this Policy.
Endorsement no.7 – DAILY ALLOWANCE IN CASE OF NON-HOSPITALISATION:
a. Coverage
The Policy will pay a fixed allowance per day.
Clause F. Exclusions (What We do not cover) under Chola Ms Bharat Griha Raksha Policy
1. Loss or damage to bullion or unset precious stones.
"""


def test_clause_and_endorsement_lines_are_keyword_headings() -> None:
    clauses = _by_id(ENDORSEMENTS)
    assert clauses["Endorsement 7"].title.startswith("DAILY ALLOWANCE")
    assert clauses["Endorsement 7(a)"].kind == "grant"
    assert _opening(clauses, "Exclusions (What We do not cover)").kind == "exclusion"
    assert _opening(clauses, "Loss or damage to bullion").kind == "exclusion"


WRAPPED = """\
Benefits
SPECIFIC DEFINITIONS – TRIP CANCELLATION AND AMENDMENT
COVER
Cancellation means a cancellation resulting in You not starting Your Trip.
Other personal items 1.5% 65%
EXCLUSIONS – PERSONAL BAGGAGE, VALUABLES, MONEY AND
TRAVEL DOCUMENTS COVER
We will not pay for or reimburse any costs arising from:
1. items left Unattended in a Public Place.
"""


def test_a_heading_wrapped_onto_a_second_line_is_one_heading() -> None:
    clauses = _by_id(WRAPPED)
    definitions = _opening(clauses, "SPECIFIC DEFINITIONS")
    assert definitions.title.endswith("AMENDMENT COVER")
    assert definitions.kind == "definition"
    assert not any(c.title == "COVER" for c in clauses.values())
    # A kind word, a dash and a title with commas is a heading even after a table row.
    unattended = _opening(clauses, "items left Unattended")
    assert unattended.kind == "exclusion"
    assert clauses[unattended.parent or ""].title.endswith("TRAVEL DOCUMENTS COVER")


QUESTIONS = """\
Pregnancy & Travel Insurance Benefits
It is important to understand how Your benefits may be limited if You are pregnant.
When Are You Not Covered if You are pregnant?
You are not covered for any costs arising from or related to:
1. any Pre-Existing Medical Condition;
2. Your pregnancy within 8 weeks of Your estimated date of delivery;
How To Make A Claim
Call us as soon as you can.
What should I do before I submit a claim?
1. Take all reasonable steps to mitigate any further losses.
"""


def test_a_question_is_a_heading_inside_the_section_above_it() -> None:
    clauses = _by_id(QUESTIONS)
    not_covered = _opening(clauses, "When Are You Not Covered")
    assert not_covered.parent == _opening(clauses, "Pregnancy & Travel").id
    assert _opening(clauses, "Your pregnancy within 8 weeks").kind == "exclusion"
    before = _opening(clauses, "What should I do before")
    assert before.parent == _opening(clauses, "How To Make A Claim").id
    assert _opening(clauses, "Take all reasonable steps").kind == "condition"


GLOSSARY = """\
Definitions
The following words have the meaning shown below.
Injury means an accidental bodily injury.
IN THE TIME PERIOD PRIOR TO MAKING YOUR PURCHASE
2 years requires ongoing medication.
Travel Benefit means any travel credit.
GENERAL EXCLUSIONS
We will not pay for war.
"""


def test_a_heading_that_names_no_kind_stays_inside_a_glossary() -> None:
    clauses = _by_id(GLOSSARY)
    table = _opening(clauses, "IN THE TIME PERIOD")
    assert table.parent == "definitions" and table.kind == "definition"
    assert _opening(clauses, "GENERAL EXCLUSIONS").parent is None


EXCEPTIONS = """\
SECTION II – COVERED AUTOS LIABILITY COVERAGE
A. Coverage
We will pay all sums an "insured" legally must pay as damages.
1. Who Is An Insured
The following are "insureds":
a. You for any covered "auto".
b. Anyone else while using with your permission a covered "auto" you own, hire or borrow except:
(1) Your "employee" if the covered "auto" is owned by that "employee".
B. Exclusions
This insurance does not apply to any of the following:
1. Contractual
Liability assumed under any contract or agreement. But this exclusion does not apply to
liability for damages:
a. Assumed in a contract or agreement that is an "insured contract".
"""


def test_a_list_of_exceptions_takes_the_opposite_kind_of_the_clause_that_opens_it() -> None:
    clauses = _by_id(EXCEPTIONS)
    employee = _opening(clauses, 'Your "employee" if')
    assert employee.kind == "exclusion"
    assert employee.kind_reason.startswith("inherited from Section II.A.1(b) (words: 'except:')")
    assumed = _opening(clauses, "Assumed in a contract")
    assert assumed.kind == "grant"
    assert _opening(clauses, "You for any covered").kind == "grant"


CRITICAL_ILLNESS = """\
7.3.1 Definition
Critical illness means any of the following illnesses.
I. Stroke Resulting in Permanent Symptoms
Any cerebrovascular incident producing permanent neurological sequelae.
II. Cancer of Specified Severity
A malignant tumor characterised by the uncontrolled growth of malignant cells.
The following are excluded:
i. All tumors which are histologically described as carcinoma in situ.
III Kidney Failure Requiring Regular Dialysis
End stage renal disease presenting as chronic irreversible failure of both kidneys.
Part 5
Uninsured Motorists Insurance
Coverage SS
We will pay damages because of bodily injury.
"""


def test_a_definitions_own_carve_outs_and_a_list_whose_dots_went_missing() -> None:
    clauses = _by_id(CRITICAL_ILLNESS)
    assert _opening(clauses, "All tumors which").kind == "exclusion"
    kidney = _opening(clauses, "Kidney Failure")
    assert kidney.id == "7.3.1.III" and kidney.kind == "definition"
    # A keyword heading whose title is printed on the next line.
    assert clauses["Part 5"].title == "Uninsured Motorists Insurance"
    assert clauses["Part 5/coverage-ss"].kind == "grant"


LONG_SECTION = """\
Section 4 – Cancellation and Curtailment Charges Before You Travel
What is covered
We will pay you up to £5,000 for your unused travel costs.
"""


def test_a_heading_policies_use_is_never_taken_for_the_end_of_a_long_heading() -> None:
    clauses = _by_id(LONG_SECTION)
    covered = _opening(clauses, "What is covered")
    assert covered.parent == "Section 4" and covered.kind == "grant"
    assert clauses["Section 4"].title.endswith("Before You Travel")
