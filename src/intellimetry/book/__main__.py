"""python -m intellimetry.book build|assemble [--profile P]  or  python -m intellimetry.book check HTML_DIR"""
import sys

from intellimetry.book import build, check

argv = sys.argv[1:]
sys.exit(check.main(argv[1:]) if argv[:1] == ["check"] else build.main(argv))
