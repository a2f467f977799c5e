"""The PEP 517 build backend of pyproject.toml: `pip install
--no-build-isolation .` builds graphgen with CMake and installs a wheel of
the graphgen package (its abi3 extension, one build for CPython 3.8 and
later) and the graphgen command.

It is written here, on the standard library alone, rather than using
setuptools: a fresh venv has pip, but not `wheel` (which setuptools needs to
build a wheel), and 3.12's venvs have no setuptools at all; nothing can be
downloaded. A wheel is a zip with a .dist-info folder (PEP 427); that is all
this writes.

The build: CMake configures a folder (build-wheel/ beside pyproject.toml,
or GRAPHGEN_BUILD_DIR, e.g. an existing build/) for the Python that runs
pip, and builds only the graphgen command and the package, not the tests.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "graphgen"


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(graphgen VERSION ([0-9.]+)", f.read())
    return m.group(1)


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Call graphs, flame graphs and reports of profiles (cProfile, callgrind, perf, TAU, ...)\n"
            "License: Apache-2.0\nRequires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n%s"
            % (NAME, _version(), readme))


def _tag():
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "cp38-abi3-" + platform


def _build(build_dir):
    # CMake for the Python that runs pip (its headers: the stable ABI's).
    say = lambda what: sys.stderr.write("graphgen build: %s\n" % what)  # noqa: E731
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        say("configuring %s" % build_dir)
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, *generator, "-DCMAKE_BUILD_TYPE=Release",
                               "-DGRAPHGEN_TESTS=OFF", "-DGRAPHGEN_MPI=OFF"])
    say("building the graphgen command and package (a few minutes the first time)")
    subprocess.check_call(["cmake", "--build", build_dir, "--target", "graphgen", "graphgen_python",
                           "--parallel", str(os.cpu_count() or 2)])


def _files(build_dir):
    # (path in the wheel, file on disk, executable)
    package = os.path.join(build_dir, "python", NAME)
    out = []
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") or name.endswith(".abi3.so"):
            out.append(("%s/%s" % (NAME, name), os.path.join(package, name), False))
    if not any(p.endswith(".abi3.so") for p, _, _ in out):
        raise RuntimeError("%s has no _graphgen.abi3.so: is python3-dev installed?" % package)
    binary = os.path.join(build_dir, NAME)
    out.append(("%s-%s.data/scripts/%s" % (NAME, _version(), NAME), binary, True))
    return out


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = "%s-%s.dist-info" % (NAME, _version())
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build_dir = os.environ.get("GRAPHGEN_BUILD_DIR") or os.path.join(ROOT, "build-wheel")
    _build(os.path.abspath(build_dir))
    version, tag = _version(), _tag()
    info = "%s-%s.dist-info" % (NAME, version)
    wheel_name = "%s-%s-%s.whl" % (NAME, version, tag)
    path = os.path.join(wheel_directory, wheel_name)
    records = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname, data, executable=False):
            entry = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (0o100755 if executable else 0o100644) << 16  # (regular file, mode)
            wheel.writestr(entry, data)
            records.append(_record_line(arcname, data))
        for arcname, disk, executable in _files(os.path.abspath(build_dir)):
            with open(disk, "rb") as f:
                add(arcname, f.read(), executable)
        add(info + "/METADATA", _metadata().encode())
        add(info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: graphgen build_backend\nRoot-Is-Purelib: false\n"
                              "Tag: %s\n" % tag).encode())
        with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
            add(info + "/LICENSE", f.read())
        record = info + "/RECORD"
        wheel.writestr(record, "\n".join(records + [record + ",,"]) + "\n")
    return wheel_name
