"""pip install --no-build-isolation . into a fresh venv (pyproject.toml,
python/build_backend.py): the graphgen command and package work there, and
pip uninstall takes them away. Run by ctest with GRAPHGEN_BUILD_DIR=build
(the backend builds there: the targets are up to date) and the Python
graphgen was built for; skipped, saying why, without python3-venv."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class PipTest(unittest.TestCase):
    def test_pip_installs_the_command_and_the_package(self):
        work = tempfile.mkdtemp(prefix="graphgen-pip-")
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        venv = os.path.join(work, "venv")
        made = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if made.returncode != 0:
            self.skipTest("this Python makes no venv with pip (Debian package python3-venv): %s"
                          % made.stderr.strip()[-200:])
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # (only what pip installs)
        bin_dir = os.path.join(venv, "bin")
        r = subprocess.run([os.path.join(bin_dir, "pip"), "install", "--no-build-isolation", "--no-index", ROOT],
                           capture_output=True, text=True, env=env, timeout=1200)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-3000:])
        with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
            version = f.read().split("project(graphgen VERSION ", 1)[1].split()[0]
        for command in ([os.path.join(bin_dir, "graphgen"), "--version"],
                        [os.path.join(bin_dir, "python"), "-m", "graphgen", "--version"]):
            out = subprocess.run(command, capture_output=True, text=True, env=env)
            self.assertEqual(out.stdout, "graphgen %s\n" % version, out.stderr)
        where = subprocess.run([os.path.join(bin_dir, "python"), "-c", "import graphgen; print(graphgen.__file__)"],
                               capture_output=True, text=True, env=env)
        self.assertTrue(where.stdout.startswith(venv), where.stdout + where.stderr)
        # The command reads a profile; python -m graphgen run profiles in the venv.
        demo = os.path.join(ROOT, "testdata", "demo.pstats")
        png = os.path.join(work, "demo.png")
        drawn = subprocess.run([os.path.join(bin_dir, "graphgen"), demo, "-o", png], capture_output=True, env=env)
        self.assertEqual(drawn.returncode, 0, drawn.stderr)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(work, "app.py"), "w") as f:
            f.write("import sys\nprint(sys.prefix)\n")
        ran = subprocess.run([os.path.join(bin_dir, "python"), "-m", "graphgen", "run", "-o", "-", "-T", "stats",
                              "app.py"], capture_output=True, text=True, cwd=work, env=env)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertTrue(ran.stdout.startswith(venv + "\n"), ran.stdout)
        # pip uninstall leaves nothing of graphgen.
        gone = subprocess.run([os.path.join(bin_dir, "pip"), "uninstall", "-y", "graphgen"], capture_output=True,
                              text=True, env=env)
        self.assertEqual(gone.returncode, 0, gone.stderr)
        self.assertFalse(os.path.exists(os.path.join(bin_dir, "graphgen")))
        site = os.path.dirname(os.path.dirname(where.stdout.strip()))
        left = [d for d in os.listdir(site) if d.startswith("graphgen")]
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
