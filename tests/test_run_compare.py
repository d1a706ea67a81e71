"""--compare's building blocks without kernels: output text, stream chunking, nbval's sanitizers."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_output

from autograd_instructor.regression import Sanitizer, cell_text_outputs, default_sanitize_config


def cell_with(*outputs):
    cell = new_code_cell("...")
    cell.outputs = list(outputs)
    return cell


def test_stream_chunks_are_joined_before_comparing():
    one = cell_with(new_output("stream", name="stdout", text="outside: True  inside: False\n"))
    split = cell_with(
        new_output("stream", name="stdout", text="outside:"),
        new_output("stream", name="stdout", text=" True  inside: False\n"),
    )
    assert cell_text_outputs(one) == cell_text_outputs(split) == "[stdout] outside: True  inside: False"


def test_results_errors_and_other_streams_stay_separate():
    cell = cell_with(
        new_output("stream", name="stdout", text="a\n"),
        new_output("stream", name="stderr", text="warned\n"),
        new_output(
            "execute_result", data={"text/plain": "tensor(1.)", "image/png": "iVBOR"}, execution_count=1
        ),
        new_output("error", ename="RuntimeError", evalue="boom", traceback=["..."]),
    )
    assert cell_text_outputs(cell) == "[stdout] a\n[stderr] warned\ntensor(1.)\nRuntimeError: boom"


def test_sanitizer_reads_the_nbval_config_of_the_test_suite():
    sanitize = Sanitizer.from_file()
    assert sanitize.source == str(default_sanitize_config())
    assert len(sanitize.patterns) == default_sanitize_config().read_text().count("\nregex: ")
    # what differs between runs without meaning anything compares equal once sanitised ...
    assert sanitize("<Node at 0x7f3a2b4c5d60> took 0.42 s") == sanitize("<Node at 0x55d0c0ffee00> took 1.3 s")
    # ... and values that mean something still differ
    assert sanitize("loss 0.4200") != sanitize("loss 0.4300")
