"""The field corpus: bugs people reported in public, each reproduced as small as it can be while
faithful to its thread, with the thread's address (as the search returned it), the cause the
thread states, and the finding the toolkit must make, declared before the toolkit runs.

Each module holds one family of bugs; CASES gathers them. tests/test_field_corpus.py runs them.
"""

from field_corpus.case import Case, Setup
from field_corpus.cases_functions import CASES as FUNCTIONS
from field_corpus.cases_graph import CASES as GRAPH
from field_corpus.cases_loop import CASES as LOOP
from field_corpus.cases_loss import CASES as LOSS
from field_corpus.cases_nan import CASES as NAN
from field_corpus.cases_order import CASES as ORDER
from field_corpus.cases_precision import CASES as PRECISION
from field_corpus.cases_structure import CASES as STRUCTURE
from field_corpus.cases_wrappers import CASES as WRAPPERS

CASES: tuple[Case, ...] = GRAPH + LOOP + FUNCTIONS + PRECISION + NAN + WRAPPERS + ORDER + LOSS + STRUCTURE

__all__ = ["CASES", "Case", "Setup"]
