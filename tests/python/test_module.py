"""The graphgen module from Python: run by ctest with the Python graphgen was
built for, PYTHONPATH=build/python and GRAPHGEN_BINARY=build/graphgen."""
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import graphgen

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(os.path.dirname(os.path.dirname(HERE)), "testdata")
BINARY = os.environ.get("GRAPHGEN_BINARY", "graphgen")


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work():
    return sum(fib(k) for k in range(12)) + len(sorted(str(i) for i in range(500)))


def live_profile():
    prof = cProfile.Profile()
    prof.enable()
    work()
    prof.disable()
    return prof


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="graphgen-py-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def cli(self, *args):
        return subprocess.run([BINARY, *args], check=True, capture_output=True).stdout

    def test_a_live_profile_renders_as_the_cli_renders_its_dump(self):
        prof = live_profile()
        dumped = os.path.join(self.dir, "p.pstats")
        prof.dump_stats(dumped)
        for options, args in (({}, []), ({"node_thres": 0, "edge_thres": 0}, ["-n0", "-e0"]),
                              ({"colormap": "gray", "node_label": ["self-time", "total-time"]},
                               ["-c", "gray", "--node-label", "self-time", "--node-label", "total-time"])):
            with self.subTest(options=options):
                want = self.cli(dumped, "-T", "dot", *args).decode()
                self.assertEqual(graphgen.render(prof, **options), want)
                self.assertEqual(graphgen.render(pstats.Stats(prof), **options), want)
                self.assertEqual(graphgen.render(dumped, **options), want)

    def test_pprofs_filters_are_keywords(self):
        # A live profile: the live path has no file, the filters still apply.
        prof = live_profile()
        dumped = os.path.join(self.dir, "p.pstats")
        prof.dump_stats(dumped)
        hidden = graphgen.render(prof, hide=["^fib$"], node_thres=0, edge_thres=0)
        self.assertNotIn("fib", hidden)
        self.assertIn("work", hidden)
        self.assertEqual(hidden, self.cli(dumped, "-T", "dot", "--hide", "^fib$", "-n0", "-e0").decode())
        focused = graphgen.render(dumped, focus=["^fib$"], format="stats")
        self.assertIn("(fib)", focused)
        # (sorted stays: it calls the <genexpr> of work's line, which calls fib.)
        self.assertNotIn("builtins.len", focused)

    def test_images_and_files(self):
        prof = live_profile()
        png = graphgen.render(prof, format="png")
        self.assertTrue(png.startswith(b"\x89PNG\r\n\x1a\n"))
        svg_path = os.path.join(self.dir, "out.svg")
        self.assertIsNone(graphgen.render(pstats.Stats(prof), svg_path))
        with open(svg_path) as f:
            self.assertIn("<svg", f.read())
        self.assertIsNone(graphgen.render(prof, path=os.path.join(self.dir, "out.png")))

    def test_notebooks_see_svg_and_png(self):
        g = graphgen.graph(live_profile(), node_thres=0)
        svg = g._repr_svg_()
        # The element alone: an XML declaration broke nbconvert --to html.
        self.assertTrue(svg.startswith("<svg"), svg[:80])
        self.assertTrue(g.svg().startswith("<?xml"))
        self.assertEqual(g._repr_html_(), svg)  # (what nbconvert's HTML shows whole)
        self.assertIn("fib", svg)
        self.assertIn("work", svg)
        self.assertTrue(g._repr_png_().startswith(b"\x89PNG"))
        self.assertTrue(g.dot.startswith("digraph {"))
        g.save(os.path.join(self.dir, "g.dot"))
        with open(os.path.join(self.dir, "g.dot")) as f:
            self.assertEqual(f.read(), g.dot)

    def test_merge_and_callgrind(self):
        ranks = [os.path.join(TESTDATA, "mpi", "cpu_%d.prof" % r) for r in range(8)]
        merged = os.path.join(self.dir, "merged.pstats")
        with open(merged, "wb") as f:
            f.write(graphgen.merge(ranks))
        self.assertEqual(pstats.Stats(merged).total_calls, pstats.Stats(*ranks).total_calls)
        self.assertEqual(graphgen.merge(ranks), self.cli(*ranks, "-T", "pstats"))
        callgrind = graphgen.to_callgrind(live_profile())
        self.assertTrue(callgrind.startswith("# callgrind format\n"))  # text: str
        self.assertIn("fn=", callgrind)

    def test_errors_raise(self):
        prof = live_profile()
        with self.assertRaises(ValueError) as e:
            graphgen.render(prof, colormap="rainbow")
        self.assertIn("rainbow", str(e.exception))
        with self.assertRaises(OSError) as e:
            graphgen.render(os.path.join(self.dir, "missing.pstats"))
        self.assertIn("missing.pstats: cannot open", str(e.exception))
        bad = os.path.join(self.dir, "bad.pstats")
        with open(bad, "wb") as f:
            f.write(b"{(not a profile")
        with self.assertRaises(ValueError):
            graphgen.render(bad)
        with self.assertRaises(TypeError):
            graphgen.render(3.14)
        with self.assertRaises(TypeError):
            graphgen.render(prof, each=True)
        with self.assertRaises(ValueError):
            graphgen.render(prof, no_such_option=1)
        with self.assertRaises(ValueError):
            graphgen.render(prof, root="no_such_function*")

    def test_a_live_profile_has_no_line_report_as_in_the_cli(self):
        # The CLI refuses -T text for pstats input; the module returned a
        # line_profiler report of nothing ("Total time: 0 s").
        demo = os.path.join(TESTDATA, "demo.pstats")
        cli = subprocess.run([BINARY, "-T", "text", demo], capture_output=True)
        self.assertEqual(cli.returncode, 2)
        for source in (pstats.Stats(demo), live_profile(), demo):
            with self.assertRaises(ValueError) as e:
                graphgen.render(source, format="text")
            self.assertIn("text output is line_profiler's report; pstats input has no per-line report",
                          str(e.exception))
            self.assertIn(str(e.exception), cli.stderr.decode())
        with self.assertRaises(ValueError):
            graphgen.render(pstats.Stats(demo), os.path.join(self.dir, "report.txt"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "report.txt")))

    def test_warnings_are_python_warnings(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            graphgen.render(os.path.join(TESTDATA, "perf", "q-g.perf"), format="pstats")
        self.assertTrue(any("pstats holds seconds" in str(w.message) for w in caught), caught)

    def test_text_outputs_are_str_and_the_others_bytes(self):
        prof = live_profile()
        for fmt, kind in (("dot", str), ("stats", str), ("folded", str), ("html", str), ("svg", str),
                          ("png", bytes), ("pstats", bytes), ("pprof", bytes)):
            with self.subTest(format=fmt):
                self.assertIsInstance(graphgen.render(prof, format=fmt), kind)

    def test_docstrings_have_signatures_and_options(self):
        import inspect
        self.assertEqual(str(inspect.signature(graphgen.render)), "(source, /, path=None, format=None, **options)")
        self.assertEqual(str(inspect.signature(graphgen.graph)), "(source, /, **options)")
        self.assertIn("node_thres (-n,--node-thres): drop functions whose total is below", graphgen.render.__doc__)
        self.assertIn("colormap (-c,--colormap)", graphgen.graph.__doc__)

    def test_the_magic_in_a_notebook_run_by_nbconvert(self):
        # %load_ext graphgen, then %graphgen and %%graphgen in a notebook that
        # jupyter nbconvert --execute runs (Debian's jupyter-nbconvert and
        # python3-ipykernel) and writes as HTML.
        nbconvert = shutil.which("jupyter-nbconvert")
        if not nbconvert:
            self.skipTest("jupyter-nbconvert (Debian packages jupyter-nbconvert, python3-ipykernel) is not installed")
        import json
        cells = ["%load_ext graphgen",
                 "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)",
                 "%graphgen -n 0 fib(12)",
                 "%%graphgen -T stats --sort ncalls\nx = fib(10)\ny = sorted(range(100))",
                 "print(x)"]
        notebook = {"nbformat": 4, "nbformat_minor": 5,
                    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                    "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                               "source": c, "id": "c%d" % i} for i, c in enumerate(cells)]}
        path = os.path.join(self.dir, "nb.ipynb")
        with open(path, "w") as f:
            json.dump(notebook, f)
        r = subprocess.run([nbconvert, "--to", "html", "--execute", "--output", "nb.html", path],
                           capture_output=True, text=True, cwd=self.dir, timeout=240)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        with open(os.path.join(self.dir, "nb.html"), encoding="utf-8") as f:
            page = f.read()
        # The magic's call graph, inline: fib's node in an SVG of Graphviz's.
        svg = page[page.find("<svg"):page.find("</svg>")]
        self.assertIn('class="graph"', svg)
        self.assertRegex(svg, r">[0-9]+:1:fib</text>")
        # The cell magic's table, printed, and the cell's own results kept.
        self.assertIn("Ordered by: call count", page)
        self.assertRegex(page, r"177/1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ [^\n]*\(fib\)")
        self.assertIn("55", page)

    def test_the_gil_is_released_while_graphgen_works(self):
        import threading
        ranks = [os.path.join(TESTDATA, "mpi", "cpu_%d.prof" % r) for r in range(8)] * 64
        ticks = []
        done = threading.Event()

        def ticker():
            while not done.is_set():
                ticks.append(1)
                done.wait(0.001)

        t = threading.Thread(target=ticker)
        t.start()
        try:
            for _ in range(5):
                graphgen.merge(ranks)
        finally:
            done.set()
            t.join()
        self.assertGreater(len(ticks), 3)


if __name__ == "__main__":
    unittest.main()
