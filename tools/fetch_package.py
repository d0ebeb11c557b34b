#!/usr/bin/python3
"""Downloads one file and checks it against a Subresource-Integrity string ("sha512-<base64>",
the form the npm registry publishes as a package version's dist.integrity) before keeping it.

  /usr/bin/python3 tools/fetch_package.py URL INTEGRITY OUT

Exit 0 with OUT written; exit 2 with one line on stderr and no OUT when the download fails or
its digest differs (a truncated or altered download is never kept).
"""
import base64
import hashlib
import os
import sys
import urllib.request


def main(argv):
    if len(argv) != 4:
        print("usage: fetch_package.py URL INTEGRITY OUT", file=sys.stderr)
        return 2
    url, integrity, out = argv[1:]
    algorithm, _, expected = integrity.partition("-")
    if algorithm not in ("sha256", "sha384", "sha512") or not expected:
        print(f"fetch_package.py: {integrity}: not an integrity string (sha512-<base64>)",
              file=sys.stderr)
        return 2
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except (OSError, ValueError) as e:  # URLError and socket errors; a malformed URL
        print(f"fetch_package.py: {url}: {e}", file=sys.stderr)
        return 2
    digest = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if digest != expected:
        print(f"fetch_package.py: {url}: {algorithm} {digest} is not the expected {expected} "
              f"({len(data)} bytes)", file=sys.stderr)
        return 2
    partial = out + ".part"
    with open(partial, "wb") as f:
        f.write(data)
    os.replace(partial, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
