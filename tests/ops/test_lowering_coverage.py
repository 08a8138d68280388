"""Every entry of the lowering table (lowerings.LOWERINGS) is lowered by at least one
case of the op tests: op_table.py (test_ops*.py) or the OpInfo run (test_opinfo.py).
How cases are traced: lowering_coverage.py; the witness table: opinfo_tables.py."""
from __future__ import annotations

import os

import pytest

from lowering_coverage import trace_case
from opinfo_harness import ops_for
from opinfo_tables import UNCOVERED, WITNESSES, expected_failure

FULL = os.environ.get("BESSEMER_TEST_FULL") == "1"


def test_witness_table_names_every_lowering():
    from bessemer.compiler.lowering.rules import LOWERINGS
    wanted = {str(op) for op in LOWERINGS}
    claimed = set().union(*WITNESSES.values())
    missing = wanted - claimed - set(UNCOVERED)
    assert not missing, (f"LOWERINGS entries no test is known to lower: {sorted(missing)}; "
                         f"`python tests/ops/lowering_coverage.py` finds a case for each")
    stale = (claimed | set(UNCOVERED)) - wanted
    assert not stale, f"entries of opinfo_tables that LOWERINGS no longer has: {sorted(stale)}"
    assert not claimed & set(UNCOVERED), sorted(claimed & set(UNCOVERED))


# Tracing a case takes seconds: `make test` checks every WITNESS_STEP-th witness (by
# sorted name), `make test-full` all of them.
WITNESS_STEP = 4


@pytest.mark.parametrize("case", [c for i, c in enumerate(sorted(WITNESSES)) if FULL or i % WITNESS_STEP == 0])
def test_witness_lowers_what_it_claims(case):
    """The witness is a passing case of the suite, and tracing it lowers its entries."""
    import op_table
    kind, rest = case.split(":", 1)
    name, dtype_name = rest.rsplit("@", 1)
    if kind == "op_table":
        assert name in op_table.OPS and dtype_name in op_table.DTYPES
    else:
        assert name in ops_for(dtype_name), f"{name} is not an OpInfo case in {dtype_name}"
        assert expected_failure(name, "cpp", dtype_name) is None, f"{case} is an expected failure"
    hits = trace_case(case)
    lost = set(WITNESSES[case]) - hits
    assert not lost, f"{case} no longer lowers {sorted(lost)}"


@pytest.mark.skipif(not FULL, reason="traces every case: make test-full")
def test_uncovered_lowerings_stay_unreached():
    """The entries listed as reached by no case really are (else they move to WITNESSES)."""
    from lowering_coverage import all_cases, scan
    hits = scan(all_cases())
    reached = {c: sorted(h & set(UNCOVERED)) for c, h in hits.items() if h & set(UNCOVERED)}
    assert not reached, f"UNCOVERED entries that a case lowers: {reached}"
