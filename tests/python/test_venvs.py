"""The graphgen package (one abi3 build) in venvs of other CPythons: run by
ctest with PYTHONPATH=build/python. For each of pyenv's 3.8, 3.11, 3.12 and
3.13 found on this machine, a venv with a package only it has: `import
graphgen` works there, and `python -m graphgen run app.py` profiles the
program in that Python, so the program imports the venv's package (graphgen
run's embedded Python could not). A Python that is absent is skipped, by
name."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

VERSIONS = ("3.8", "3.11", "3.12", "3.13")
APP = ("import sys, onlyvenv\n"
       "def square_sum(n):\n"
       "    return sum(i * i for i in range(n))\n"
       "print(onlyvenv.WHERE, square_sum(1000), '%d.%d' % sys.version_info[:2])\n")


def find_python(version):
    found = shutil.which("python" + version)
    if found and subprocess.run([found, "-c", "pass"], capture_output=True).returncode == 0:
        return found
    pyenv = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    for candidate in sorted(glob.glob(os.path.join(pyenv, "versions", version + ".*", "bin", "python3"))):
        return candidate
    return None


class VenvTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="graphgen-venv-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        with open(os.path.join(self.dir, "app.py"), "w") as f:
            f.write(APP)

    def check(self, version):
        python = find_python(version)
        if python is None:
            self.skipTest("no Python %s on this machine (pyenv install %s)" % (version, version))
        venv = os.path.join(self.dir, "venv" + version)
        made = subprocess.run([python, "-m", "venv", "--without-pip", venv], capture_output=True, text=True)
        if made.returncode != 0:
            self.skipTest("Python %s cannot make a venv: %s" % (version, made.stderr.strip()[-200:]))
        site = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))[0]
        with open(os.path.join(site, "onlyvenv.py"), "w") as f:
            f.write("WHERE = 'the venv'\n")
        exe = os.path.join(venv, "bin", "python3")
        imported = subprocess.run([exe, "-c", "import graphgen, cProfile\n"
                                   "p = cProfile.Profile(); p.enable(); sorted(range(9)); p.disable()\n"
                                   "print(type(graphgen.render(p, format='stats')).__name__)"],
                                  capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stderr)
        self.assertEqual(imported.stdout, "str\n")
        r = subprocess.run([exe, "-m", "graphgen", "run", "app.py"], capture_output=True, text=True, cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "the venv 332833500 %s\n" % version)
        self.assertEqual(r.stderr, "python3 -m graphgen run: wrote app.pstats (-o FILE for another name, -o - for "
                                   "standard output)\n")
        stats = subprocess.run([exe, "-m", "graphgen", "app.pstats", "-T", "stats", "--sort", "ncalls"],
                               capture_output=True, text=True, cwd=self.dir)
        self.assertEqual(stats.returncode, 0, stats.stderr)
        self.assertRegex(stats.stdout, r"\n +1001 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ app\.py:3\(<genexpr>\)\n")
        self.assertIn("app.py:2(square_sum)", stats.stdout)
        # -s KEY prints the table as python -m cProfile -s KEY does: file names
        # without their folders (cProfile's print_stats calls strip_dirs).
        table = subprocess.run([exe, "-m", "graphgen", "run", "-s", "ncalls", "app.py"], capture_output=True,
                               text=True, cwd=self.dir)
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertIn(" onlyvenv.py:1(<module>)\n", table.stdout)
        self.assertNotIn(site, table.stdout)

    def test_python_3_8(self):
        self.check("3.8")

    def test_python_3_11(self):
        self.check("3.11")

    def test_python_3_12(self):
        self.check("3.12")

    def test_python_3_13(self):
        self.check("3.13")


if __name__ == "__main__":
    unittest.main()
